// The seller portal's own script (htmx does the rest; docs/portal.md): copy
// buttons, the refusals that come back as JSON (a session that ended reloads the
// page, which then says so; any other is shown at the top), and focus after
// htmx changed the page: the error summary, else what the page just did (a new
// secret, a result), else the page's heading.
'use strict'

document.addEventListener('click', function (event) {
  const button = event.target.closest('[data-copy]')
  if (!button) return
  const field = document.getElementById(button.getAttribute('data-copy'))
  const status = button.parentElement.querySelector('.copy-status')
  const done = function () { if (status) status.textContent = status.getAttribute('data-copied') }
  field.select()
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(done, function () { if (document.execCommand('copy')) done() })
  } else if (document.execCommand('copy')) {
    done()
  }
})

document.addEventListener('htmx:beforeSwap', function (event) {
  const xhr = event.detail.xhr
  if (!(xhr.getResponseHeader('content-type') || '').startsWith('application/json')) return
  event.detail.shouldSwap = false
  if (xhr.status === 401) {
    window.location.reload()
    return
  }
  let message = xhr.statusText
  try { message = JSON.parse(xhr.responseText).error.message } catch (err) {}
  const status = document.getElementById('portal-status')
  status.textContent = message
  status.hidden = false
  status.scrollIntoView()
})

document.addEventListener('htmx:afterSettle', function (event) {
  if (event.detail.target !== document.body) return
  const target = document.querySelector('.error-summary') || document.querySelector('[data-autofocus]') ||
    document.querySelector('main h1')
  if (!target) return
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1')
  target.focus()
  window.scrollTo(0, 0)
})

// The Sales page opened without a chosen zone shows the figures in the browser's own
// time zone (the page's form says which): the address gets it, so a reload keeps it.
function salesInBrowserZone () {
  const form = document.querySelector('form[data-browser-zone]')
  if (!form || !window.Intl) return
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  const field = form.querySelector('[name="tz"]')
  if (!zone || !field || field.value === zone) return
  const query = new URLSearchParams(window.location.search)
  query.set('tz', zone)
  window.location.replace(form.getAttribute('action') + '?' + query.toString())
}
document.addEventListener('DOMContentLoaded', salesInBrowserZone)
document.addEventListener('htmx:afterSettle', salesInBrowserZone)
