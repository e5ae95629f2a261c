// The portal's shell in English: the header (the shop's name, sign-out), the
// session's footer, switching shops from a link, and the refusals every page may
// give (too many changes, text that would be cut or is not UTF-8). en.ts takes
// them in; ru-shell.ts says the same in Russian.

export const enShell = {
  'shell.shop': 'Shop',
  'shell.signOut': 'Sign out',
  'shell.zone': 'Time: {tz}',
  'zone.title': 'Your time zone',
  'zone.text': 'Every time on these pages is shown in this zone. It is kept for this session only.',
  'zone.label': 'Time zone',
  'zone.hint': 'Choose from the list or type a zone name, for example Europe/Moscow or Asia/Yekaterinburg.',
  'zone.save': 'Save',
  'shell.session': 'Session {id} · without activity it ends at {idle}, at the latest at {end}',
  'shell.signedOutTitle': 'You have signed out',
  'shell.signedOutText': 'Your session has ended in this browser. To come back, open the seller settings from ' +
    'the marketplace again.',
  'shell.tooManyTitle': 'Too many changes',
  'shell.tooManyText': 'This session has made more than {max} changes in a minute. Nothing was changed this time: ' +
    'wait {seconds} s and try again.',

  'switch.title': 'Switch to another shop?',
  'switch.text': 'This browser is signed in to the shop “{current}”. The link you opened is for the shop “{other}”. ' +
    'If you did not expect this, stay: someone may be trying to make you work in their shop.',
  'switch.confirm': 'Switch to “{other}”',
  'switch.stay': 'Stay in “{current}”',
  'switch.refusedTitle': 'The switch was not made',
  'switch.refusedText': 'The switch could not be confirmed from this browser’s session. The link was not used: ' +
    'open it again to choose.',

  'errors.notUtf8': '{field}: the text is not in UTF-8. Save it as UTF-8 and send it again; nothing was saved.',
  'errors.tooLarge': 'The form is too large to be read. Nothing was saved.',
  'upload.valuesCut': 'The pasted text is longer than {max} bytes: upload it as a file or in parts. ' +
    'Nothing was saved.',
  'upload.fileTooLarge': 'The file is larger than {max} bytes: split it into parts. Nothing was saved.',
  'upload.fileNotUtf8': 'The file is not UTF-8 text (for example, it was saved as Windows-1251). Save it as UTF-8 ' +
    'and upload it again. Nothing was saved.',
  'upload.fileAgain': 'The file {name} was not saved: choose it again.',
  'upload.valuesNotUtf8': 'The pasted text is not UTF-8. Nothing was saved.'
} as const
