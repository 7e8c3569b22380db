/*!
 * "What's new" badge for your product, from the changelog site's latest.json.
 * No dependencies, no token, no rate limit: latest.json is a static file.
 *
 *   <script src="https://changelog.example.com/widget.js" defer></script>
 *
 * Options (attributes of the script tag):
 *   data-target="#whats-new"  put the badge inside this element (default: a floating badge)
 *   data-label="What's new"   the badge text
 * The badge shows a dot until the reader opens the newest entry (remembered in localStorage).
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !window.fetch) return;
  var base = new URL('.', script.src);
  var label = script.getAttribute('data-label') || "What's new";
  var targetSelector = script.getAttribute('data-target');
  var storageKey = 'changelog-widget-seen:' + base.href;

  function seen() {
    try {
      return window.localStorage.getItem(storageKey);
    } catch (e) {
      return null;
    }
  }

  function remember(id) {
    try {
      window.localStorage.setItem(storageKey, id);
    } catch (e) {
      /* private mode: the dot stays */
    }
  }

  function style() {
    if (document.getElementById('changelog-widget-style')) return;
    var css =
      '.changelog-widget{display:inline-flex;align-items:center;gap:.5em;padding:.45em .9em;border-radius:999px;' +
      'font:600 14px/1.2 system-ui,-apple-system,"Segoe UI",sans-serif;text-decoration:none;' +
      'background:#111827;color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.18)}' +
      '.changelog-widget:hover,.changelog-widget:focus-visible{background:#312e81;color:#fff}' +
      '.changelog-widget-floating{position:fixed;right:20px;bottom:20px;z-index:2147483000}' +
      '.changelog-widget-dot{width:.55em;height:.55em;border-radius:50%;background:#f43f5e}' +
      '.changelog-widget-title{font-weight:400;opacity:.85;max-width:22em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}';
    var el = document.createElement('style');
    el.id = 'changelog-widget-style';
    el.textContent = css;
    document.head.appendChild(el);
  }

  function render(latest) {
    if (!latest || typeof latest.title !== 'string') return;
    var id = latest.uuid || latest.date + ':' + latest.slug;
    var href = typeof latest.url === 'string' && /^https?:/.test(latest.url) ? latest.url : base.href;
    var link = document.createElement('a');
    link.className = 'changelog-widget';
    link.href = href;
    var isNew = seen() !== id;
    if (isNew) {
      var dot = document.createElement('span');
      dot.className = 'changelog-widget-dot';
      dot.setAttribute('aria-hidden', 'true');
      link.appendChild(dot);
    }
    var text = document.createElement('span');
    text.textContent = label;
    link.appendChild(text);
    var title = document.createElement('span');
    title.className = 'changelog-widget-title';
    title.textContent = latest.title;
    link.appendChild(title);
    link.setAttribute('aria-label', label + (isNew ? ' (new)' : '') + ': ' + latest.title);
    link.addEventListener('click', function () {
      remember(id);
    });
    style();
    var target = targetSelector ? document.querySelector(targetSelector) : null;
    if (target) {
      target.appendChild(link);
    } else {
      link.className += ' changelog-widget-floating';
      document.body.appendChild(link);
    }
  }

  fetch(new URL('latest.json', base).href, { credentials: 'omit' })
    .then(function (response) {
      return response.ok ? response.json() : null;
    })
    .then(function (latest) {
      if (document.body) render(latest);
      else document.addEventListener('DOMContentLoaded', function () { render(latest); });
    })
    .catch(function () {
      /* no badge when the changelog cannot be reached */
    });
})();
