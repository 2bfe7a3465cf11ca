import { LRUCache } from 'lru-cache';
import QRCode from 'qrcode';

/**
 * QR codes as SVG, drawn on the server (no script, no image request). Drawing one costs about a millisecond and
 * every viewer of an intent sees the same ones, so they are kept: the page stays fast under load.
 */
const drawn = new LRUCache<string, string>({ max: 2000 });

export async function qrSvg(text: string): Promise<string> {
  let svg = drawn.get(text);
  if (svg === undefined) {
    svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
    drawn.set(text, svg);
  }
  return svg;
}
