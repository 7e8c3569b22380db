/**
 * Tables that scroll inside the text column (docs/site.md#sanitising): a table wider than
 * a phone's column (390 px) scrolls sideways in its own box, as a code block does, instead of
 * squeezing its cells until words split ("Start/er") or pushing the page wider.
 */

/**
 * Wraps every table of sanitised HTML in `<div class="table-scroll" tabindex="0">`: the box
 * that scrolls (base.css), focusable so that a keyboard scrolls it too (WCAG 2.1.1; axe's
 * `scrollable-region-focusable`). Run after sanitising, which lets no body write `tabindex`
 * or a `div` class; in its output `<table` and `</table>` are always tags, and balanced.
 *
 * @param html sanitize-html's output for an entry body.
 */
export function scrollingTables(html: string): string {
  if (!html.includes('<table')) return html;
  return html.replace(/<table(?=[ >])/g, '<div class="table-scroll" tabindex="0"><table').replace(/<\/table>/g, '</table></div>');
}
