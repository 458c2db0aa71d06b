/**
 * Deterministic pictures for the tests, encoded here so nothing is fetched (not in
 * mock/: the demo generators import nothing of the server):
 * a PNG signature (white, one dark pen stroke) of any size.
 */
import { encodePng } from '../../server/lib/png';

/** A PNG of the given size: white, with a dark pen stroke across (a stand-in for a signature). */
export function signaturePng(width: number, height: number): Buffer {
  const pixels = new Uint8Array(width * height * 3).fill(0xff);
  for (let x = 10; x < width - 10; x++) {
    const yc = Math.round(height / 2 + (height / 4) * Math.sin(x / 14) * Math.cos(x / 47));
    for (let dy = -1; dy <= 1; dy++) {
      const at = ((yc + dy) * width + x) * 3;
      pixels[at] = 0x1f;
      pixels[at + 1] = 0x2a;
      pixels[at + 2] = 0x44;
    }
  }
  return encodePng(width, height, 3, pixels);
}
