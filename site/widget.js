/*!
 * "What's new" widget for your product, from the changelog site's latest.json: a badge with
 * the count of unread entries that opens a panel of the newest five. No dependencies, no
 * token, no rate limit: latest.json is a static file beside this script.
 *
 *   <script src="https://changelog.example.com/widget.js" defer></script>
 *
 * Options (attributes of the script tag):
 *   data-target="#whats-new"  put the badge inside this element (default: a floating badge)
 *   data-label="What's new"   the badge text and the panel's title
 *   data-theme="auto"         auto (the reader's prefers-color-scheme), light or dark
 *   data-recent-days="30"     a first-time reader sees entries of the last N days as unread
 * Unread: entries the reader has not seen in the panel, newer than the newest one seen then
 * (remembered in localStorage); opening the panel marks them read. README: the "What's new"
 * widget section.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !window.fetch || !Element.prototype.attachShadow) return;
  var base = new URL('.', script.src);
  // data-workspace="<key>": one product's updates, from its section of the site (/<key>/latest.json).
  var workspace = script.getAttribute('data-workspace');
  if (workspace && !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(workspace)) workspace = null;
  if (workspace) base = new URL(workspace + '/', base);
  var jsonUrl = new URL('latest.json', base).href;
  var label = script.getAttribute('data-label') || "What's new";
  var theme = script.getAttribute('data-theme');
  var recentDays = Number(script.getAttribute('data-recent-days') || 30);
  var storageKey = 'changelog-widget:' + base.href;
  var oldKey = 'changelog-widget-seen:' + base.href; // the badge before the panel: the newest id clicked
  var DAY = 86400000;

  var LIGHT = '--bg:#fff;--fg:#111827;--muted:#4b5563;--line:#e5e7eb;--hover:#f3f4f6;--badge:#111827;--badge-fg:#fff;--ring:#4f46e5;--new:#e0e7ff;--new-fg:#3730a3;';
  var DARK = '--bg:#111827;--fg:#f3f4f6;--muted:#9ca3af;--line:#374151;--hover:#1f2937;--badge:#f3f4f6;--badge-fg:#111827;--ring:#a5b4fc;--new:#312e81;--new-fg:#e0e7ff;';
  var CSS =
    ':host{all:initial;display:inline-block}[hidden]{display:none!important}' +
    '.root{' + LIGHT + 'all:initial;position:relative;display:inline-block;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);text-align:left}' +
    '@media (prefers-color-scheme:dark){.root:not(.light){' + DARK + '}}.root.dark{' + DARK + '}' +
    '.root.floating{position:fixed;right:20px;bottom:20px;z-index:2147483000}' +
    '*{box-sizing:border-box}' +
    'button{display:inline-flex;align-items:center;gap:8px;margin:0;padding:7px 14px;border:0;border-radius:999px;font:inherit;font-weight:600;line-height:1.2;' +
    'background:var(--badge);color:var(--badge-fg);box-shadow:0 4px 14px rgba(0,0,0,.18);cursor:pointer}' +
    'button:disabled{opacity:.55;cursor:default}' +
    ':focus-visible{outline:2px solid var(--ring);outline-offset:2px}.panel :focus-visible{outline-offset:-3px}' +
    '.count{min-width:20px;padding:2px 6px;border-radius:999px;background:#be123c;color:#fff;font-size:12px;text-align:center}' +
    '.panel{position:absolute;top:calc(100% + 8px);left:0;width:340px;max-width:calc(100vw - 24px);z-index:2147483000;' +
    'background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:12px;box-shadow:0 12px 32px rgba(0,0,0,.22);overflow:hidden}' +
    '.panel.end{left:auto;right:0}.floating .panel{top:auto;bottom:calc(100% + 8px);left:auto;right:0}' +
    '.title{margin:0;padding:12px 16px;font-weight:700;border-bottom:1px solid var(--line)}' +
    'ul{list-style:none;margin:0;padding:0}li+li{border-top:1px solid var(--line)}' +
    'a{display:block;padding:10px 16px;color:inherit;text-decoration:none}a:hover{background:var(--hover)}' +
    '.entry-title{font-weight:600}time{display:block;color:var(--muted);font-size:13px}' +
    '.new{display:inline-block;margin-right:6px;padding:0 6px;border-radius:999px;background:var(--new);color:var(--new-fg);font-size:12px;font-weight:600}' +
    '.empty{margin:0;padding:12px 16px;color:var(--muted)}' +
    '.all{border-top:1px solid var(--line);font-weight:600;text-decoration:underline}';

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text; // data is text, never HTML
    return node;
  }

  function load(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return null; // storage blocked: every visit is a first visit
    }
  }

  function save(state) {
    try {
      window.localStorage.setItem(storageKey, JSON.stringify(state));
    } catch (e) {
      /* storage blocked or full: the count comes back next time */
    }
  }

  /** The entries latest.json lists, each with an absolute http(s) URL, or null when it is not latest.json. */
  function entriesOf(doc) {
    if (!doc || typeof doc !== 'object') return null;
    var list = Array.isArray(doc.entries) ? doc.entries : typeof doc.title === 'string' ? [doc] : [];
    return list
      .filter(function (e) {
        return e && typeof e.title === 'string' && typeof e.date === 'string';
      })
      .slice(0, 5)
      .map(function (e) {
        var url = base;
        try {
          url = new URL(e.url, base);
        } catch (error) {
          /* no URL: the entry links to the site */
        }
        return { uuid: typeof e.uuid === 'string' ? e.uuid : null, title: e.title, date: e.date, slug: e.slug, url: /^https?:$/.test(url.protocol) ? url.href : base.href };
      });
  }

  /**
   * Which entries are unread. Known reader: not among those read, and dated on or after the
   * newest read one. First visit: dated within the last `recentDays` days.
   */
  function unreadOf(entries, state) {
    if (state && Array.isArray(state.read)) {
      return entries.map(function (e) {
        return state.read.indexOf(e.url) < 0 && (!e.uuid || state.read.indexOf(e.uuid) < 0) && e.date >= String(state.upTo || '');
      });
    }
    var old = load(oldKey);
    var clicked = -1;
    entries.forEach(function (e, i) {
      if (clicked < 0 && old && (old === e.uuid || old === e.date + ':' + e.slug)) clicked = i;
    });
    var since = new Date(Date.now() - recentDays * DAY).toISOString();
    return entries.map(function (e, i) {
      return clicked >= 0 ? i < clicked : e.date >= since;
    });
  }

  function readState() {
    try {
      var state = JSON.parse(load(storageKey));
      return state && typeof state === 'object' ? state : null;
    } catch (e) {
      return null;
    }
  }

  function markRead(entries, state) {
    var read = [];
    entries.forEach(function (e) {
      read.push(e.url);
      if (e.uuid) read.push(e.uuid);
    });
    var before = state && Array.isArray(state.read) ? state.read : [];
    var upTo = state && typeof state.upTo === 'string' ? state.upTo : '';
    if (entries[0] && entries[0].date > upTo) upTo = entries[0].date;
    save({ read: read.concat(before.filter(function (id) { return read.indexOf(id) < 0; })).slice(0, 50), upTo: upTo });
  }

  var host = el('changelog-widget');
  var shadow = host.attachShadow({ mode: 'open' });
  var style = el('style', null, CSS);
  var root = el('div', 'root');
  if (theme === 'light' || theme === 'dark') root.className += ' ' + theme;
  var button = el('button');
  button.type = 'button';
  button.disabled = true; // until latest.json is read; it stays so when it cannot be
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', 'panel');
  button.appendChild(el('span', null, label));
  var count = el('span', 'count');
  count.setAttribute('aria-hidden', 'true');
  count.hidden = true;
  button.appendChild(count);
  var panel = el('div', 'panel');
  panel.id = 'panel';
  panel.hidden = true;
  panel.tabIndex = -1;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-labelledby', 'panel-title');
  var heading = el('p', 'title', label);
  heading.id = 'panel-title';
  panel.appendChild(heading);
  root.appendChild(button);
  root.appendChild(panel);
  shadow.appendChild(style);
  shadow.appendChild(root);

  function setCount(n) {
    count.textContent = n ? String(n) : '';
    count.hidden = n === 0;
    button.setAttribute('aria-label', n ? label + ', ' + n + ' unread' : label);
  }

  function close(returnFocus) {
    if (panel.hidden) return;
    panel.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (returnFocus) button.focus();
  }

  function dateFormat() {
    var options = { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' };
    try {
      return new Intl.DateTimeFormat(document.documentElement.lang || undefined, options);
    } catch (e) {
      return new Intl.DateTimeFormat(undefined, options); // the page's lang is no language tag
    }
  }

  function fill(entries) {
    var state = readState();
    var unread = unreadOf(entries, state);
    var format = dateFormat();
    var list = el('ul');
    entries.forEach(function (e, i) {
      var link = el('a');
      link.href = e.url;
      if (unread[i]) link.appendChild(el('span', 'new', 'New'));
      link.appendChild(el('span', 'entry-title', e.title));
      var day = new Date(e.date.slice(0, 10) + 'T00:00:00Z'); // the day alone, a form every browser parses
      var time = el('time', null, isNaN(day) ? e.date.slice(0, 10) : format.format(day));
      time.setAttribute('datetime', e.date.slice(0, 10));
      link.appendChild(time);
      var item = el('li');
      item.appendChild(link);
      list.appendChild(item);
    });
    panel.appendChild(entries.length ? list : el('p', 'empty', 'No updates yet.'));
    var all = el('a', 'all', 'All updates');
    all.href = base.href;
    panel.appendChild(all);
    setCount(unread.filter(Boolean).length);
    button.disabled = false;
    button.addEventListener('click', function () {
      if (!panel.hidden) return close(true);
      panel.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      panel.classList.remove('end');
      if (panel.getBoundingClientRect().right > document.documentElement.clientWidth) panel.classList.add('end');
      markRead(entries, state);
      state = readState();
      setCount(0);
      (panel.querySelector('a') || panel).focus();
    });
    root.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && !panel.hidden) {
        event.stopPropagation();
        close(true);
      }
    });
    // Focus or a click leaving the widget closes the panel (it is not modal).
    root.addEventListener('focusout', function (event) {
      if (event.relatedTarget && !root.contains(event.relatedTarget)) close(false);
    });
    document.addEventListener('pointerdown', function (event) {
      if (event.composedPath().indexOf(host) < 0) close(false);
    });
  }

  function fail(reason) {
    console.error(
      'changelog widget: cannot read ' + jsonUrl + ' (' + reason + '). If the changelog is on another origin, it must allow cross-origin reads (CORS: Access-Control-Allow-Origin); see README.md of changelog-sync, section: The "What\'s new" widget, Cross-origin reads (CORS).',
    );
  }

  function mount() {
    var target = script.getAttribute('data-target');
    var parent = null;
    try {
      parent = target ? document.querySelector(target) : null;
    } catch (e) {
      /* not a selector: the badge floats */
    }
    if (!parent) {
      root.className += ' floating';
      parent = document.body;
    }
    parent.appendChild(host);
  }

  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);

  fetch(jsonUrl, { credentials: 'omit' })
    .then(
      function (response) {
        if (!response.ok) return fail('HTTP ' + response.status);
        return response
          .json()
          .then(function (doc) {
            var entries = entriesOf(doc);
            if (entries) fill(entries);
            else fail('not a latest.json document');
          })
          .catch(function () {
            fail('not a latest.json document');
          });
      },
      function () {
        fail('the request was refused: most often CORS, else the network');
      },
    );
})();
