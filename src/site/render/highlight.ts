/**
 * Syntax highlighting of code blocks at build time, so code reads well with no script on the
 * page. `renderBody` (sanitize.ts) runs it on marked's HTML before sanitising, so the sanitiser
 * stays the one gate: it lets through highlight.js's classes (`hljs`, `hljs-*`, sub-scopes such as
 * `class_`) and nothing more; the themes colour them (`_includes/css/base.css`, "Code").
 *
 * highlight.js's "common" languages load on the first fenced block with a language. A block is
 * highlighted when its fence names one of them or an alias ({@link LANGUAGE_ALIASES}); otherwise
 * it stays plain text: no guessing (detection runs every grammar) and never an error.
 */
import { createRequire } from 'node:module';
import type { HLJSApi } from 'highlight.js';
import { htmlText } from './html-text.js';

/** Fence languages of real changelogs highlight.js does not know by that name (`curl` blocks are shell commands); its own aliases need none. */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = { curl: 'bash' };

/** A code block as marked writes a fence with a language (escaped); raw HTML that looks the same is treated the same, any other `<pre>` left alone. */
const FENCED_BLOCK = /<pre><code class="language-([^"\s]+)">([^<]*)<\/code><\/pre>/g;

/** The only character references marked writes into code. */
const MARKED_REFERENCES = /&(?:amp|lt|gt|quot|#39);/g;

let hljs: HLJSApi | undefined;

/** highlight.js with its common languages, loaded once (synchronously: rendering is). */
function highlighter(): HLJSApi {
  hljs ??= createRequire(import.meta.url)('highlight.js/lib/common') as HLJSApi;
  return hljs;
}

/**
 * The highlight.js language of a fence's language, or undefined (no highlighting).
 * @param fence the fence's language as marked wrote it into the class (HTML-escaped).
 */
export function languageOf(fence: string): string | undefined {
  const name = fence.toLowerCase();
  const wanted = LANGUAGE_ALIASES[name] ?? name;
  if (!/^[a-z0-9+#_.-]+$/.test(wanted)) return undefined;
  return highlighter().getLanguage(wanted) ? wanted : undefined;
}

/**
 * Highlights the fenced code blocks of marked's HTML: `<pre><code class="language-js">`
 * becomes `<pre><code class="hljs language-js">` with the code in highlight.js's `<span
 * class="hljs-…">`s (its text escaped by highlight.js). Everything else is returned as it
 * is, and so is a block whose language highlight.js does not know.
 *
 * @param html marked's output for an entry body (not yet sanitised).
 * @returns the same HTML with its code blocks highlighted; the caller sanitises it.
 */
export function highlightCodeBlocks(html: string): string {
  if (!html.includes('<pre><code class="language-')) return html;
  return html.replace(FENCED_BLOCK, (block, fence: string, escaped: string) => {
    const language = languageOf(fence);
    // marked's escaped code is read back to text; a block with any other reference is left alone.
    if (language === undefined || escaped.replace(MARKED_REFERENCES, '').includes('&')) return block;
    const { value } = highlighter().highlight(htmlText(escaped), { language, ignoreIllegals: true });
    return `<pre><code class="hljs language-${fence}">${value}</code></pre>`;
  });
}

/**
 * The classes the sanitiser lets through on `<span>` inside highlighted code: highlight.js's
 * `hljs-<scope>` and its sub-scope classes (`title.class` is written `hljs-title class_`).
 */
export const HIGHLIGHT_SPAN_CLASSES: readonly RegExp[] = [/^hljs-[a-z][a-z0-9-]*$/, /^[a-z]+_+$/];

/**
 * Makes every code block of sanitised HTML focusable (`<pre tabindex="0">`): a code block
 * scrolls sideways instead of wrapping (base.css), and a keyboard scrolls only what it can
 * focus (WCAG 2.1.1; axe's `scrollable-region-focusable`). Run after sanitising, which
 * lets no body write `tabindex`; in its output `<pre` is always a tag.
 *
 * @param html sanitize-html's output for an entry body.
 */
export function focusableCodeBlocks(html: string): string {
  return html.includes('<pre') ? html.replace(/<pre(?=[ >])/g, '<pre tabindex="0"') : html;
}
