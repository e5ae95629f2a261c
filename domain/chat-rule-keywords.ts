// Keyword matching of the chat rules (docs/chat-rules.md, "message.keyword"):
// texts are folded (NFKC, Unicode lower case, runs of white space as one space)
// before comparing. A command (`!help`, `/start`) matches a message that is the
// command or starts with it and a space; any other keyword matches where no
// letter (L) or decimal digit (Nd) of any script stands right before or after it.

/** The text as keywords compare it. */
export function foldText (text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim()
}

export const isCommand = (keyword: string) => keyword.startsWith('!') || keyword.startsWith('/')

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

/** A test of folded messages against one rule's keywords, built once per rule. */
export function keywordMatcher (keywords: readonly string[]): (folded: string) => boolean {
  const folded = keywords.map(foldText)
  const commands = folded.filter(isCommand)
  const words = folded.filter((keyword) => !isCommand(keyword))
  const wordPattern = words.length === 0
    ? null
    : new RegExp(`(?<![\\p{L}\\p{Nd}])(?:${words.map(escapeRegExp).join('|')})(?![\\p{L}\\p{Nd}])`, 'u')
  return (message) =>
    commands.some((command) => message === command || message.startsWith(`${command} `)) ||
    (wordPattern !== null && wordPattern.test(message))
}

export interface KeywordRule { id: string, keywords: readonly string[] }

/**
 * The keyword rules of a shop (in priority order) compiled: given a buyer's
 * message, the ids of the rules it matches, in that order.
 */
export function compileKeywordRules (rules: readonly KeywordRule[]): (message: string) => string[] {
  const compiled = rules.map((rule) => ({ id: rule.id, matches: keywordMatcher(rule.keywords) }))
  return (message) => {
    const folded = foldText(message)
    return compiled.filter((rule) => rule.matches(folded)).map((rule) => rule.id)
  }
}
