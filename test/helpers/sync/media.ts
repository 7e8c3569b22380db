// Images for the tests of pull's image mirror: real files of each type, and an SVG built to
// carry script onto a site.
import { crc32, deflateSync } from 'node:zlib';

/** A valid 1x1 PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A valid 1x1 GIF. */
export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A valid 3x2 PNG (another file than {@link PNG_1X1}). */
export const PNG_3X2 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAHUlEQVR4nGNgYDgRwHBiAcMJBoaKEwEVJxZUnAAAQiwH+SggQlEAAAAASUVORK5CYII=', 'base64');

/**
 * An SVG with every way this project knows for an SVG to run script or reach another
 * origin: a script element, event handlers, a javascript: link, foreignObject with HTML,
 * an external `use`, a `set` that writes an href, a stylesheet import, a processing instruction,
 * and `url()` written with a CSS escape (`u\72l(`) in a `<style>`, a `style` and a presentation attribute.
 */
export const SVG_WITH_SCRIPT = `<?xml version="1.0"?>
<?xml-stylesheet href="https://evil.example/x.css"?>
<!DOCTYPE svg [<!ENTITY x "evil.example">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20" viewBox="0 0 40 20" onload="alert(1)">
  <script>alert(document.domain)</script>
  <style>@import url(https://evil.example/a.css); rect { fill: red }</style>
  <style>circle { fill: u\\72l(https://evil.example/style-element.png) }</style>
  <circle r="2" style="fill:u\\72l(https://evil.example/style-attribute.png); stroke: #00f"/>
  <circle r="1" fill="u\\72l(https://evil.example/presentation.png)"/>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#000"/></linearGradient></defs>
  <rect width="40" height="20" fill="url(#g)" onclick="alert(2)"/>
  <circle r="3" fill="url(https://evil.example/p.svg#x)"/>
  <a xlink:href="javascript:alert(3)"><text x="1" y="15">Hi &amp; bye</text></a>
  <use href="https://evil.example/sprite.svg#icon"/>
  <use href="#g"/>
  <set attributeName="href" to="javascript:alert(4)"/>
  <foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(5)"></iframe></foreignObject>
</svg>
`;

/** A PNG chunk: length, type, data and CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

/**
 * A PNG of a few dozen bytes whose header declares `width` x `height` pixels (8-bit grey), with
 * the data of one pixel: what a decoder sizes its buffers by is the header (a "decompression
 * bomb": 69 bytes declaring 1 x 10,000,000).
 */
export function pngDeclaring(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(Buffer.alloc(2))), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A GIF of one 1x1 frame on a logical screen of `width` x `height` (at most 65,535 each). */
export function gifDeclaring(width: number, height: number): Buffer {
  const gif = Buffer.from(GIF_1X1);
  gif.writeUInt16LE(width, 6);
  gif.writeUInt16LE(height, 8);
  return gif;
}
