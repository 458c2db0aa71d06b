/**
 * The graphic captcha: four digits drawn as jittered, rotated stroke paths over
 * noise curves, as an SVG data URL. No text nodes, so the answer is not in the
 * markup; short-lived and single use (see the captcha table).
 */
import crypto from 'node:crypto';

// Seven-segment strokes on a 10x18 cell: a top, b upper right, c lower right,
// d bottom, e lower left, f upper left, g middle.
const SEGMENTS: Record<string, [number, number, number, number]> = {
  a: [1, 1, 9, 1],
  b: [9, 1, 9, 9],
  c: [9, 9, 9, 17],
  d: [1, 17, 9, 17],
  e: [1, 9, 1, 17],
  f: [1, 1, 1, 9],
  g: [1, 9, 9, 9],
};
const DIGITS: Record<string, string> = {
  '0': 'abcdef',
  '1': 'bc',
  '2': 'abged',
  '3': 'abgcd',
  '4': 'fgbc',
  '5': 'afgcd',
  '6': 'afgedc',
  '7': 'abc',
  '8': 'abcdefg',
  '9': 'abcdfg',
};

const rnd = (min: number, max: number) => min + (crypto.randomInt(0, 10_000) / 10_000) * (max - min);

export function randomDigits(length = 4): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(crypto.randomInt(0, 10));
  return out;
}

export function renderCaptcha(answer: string, width = 120, height = 40): string {
  const colors = ['#1d39c4', '#c41d7f', '#389e0d', '#d4380d', '#531dab', '#08979c'];
  const parts: string[] = [`<rect width="${width}" height="${height}" fill="#f5f7fa"/>`];
  for (let i = 0; i < 4; i++) {
    const c = colors[crypto.randomInt(0, colors.length)];
    parts.push(
      `<path d="M${rnd(0, 20).toFixed(1)} ${rnd(5, height - 5).toFixed(1)} Q${rnd(30, 90).toFixed(1)} ${rnd(0, height).toFixed(1)} ${rnd(100, width).toFixed(1)} ${rnd(5, height - 5).toFixed(1)}" stroke="${c}" stroke-width="1" fill="none" opacity="0.6"/>`,
    );
  }
  const cell = (width - 16) / answer.length;
  [...answer].forEach((digit, i) => {
    const x = 8 + i * cell + rnd(2, cell - 14);
    const y = rnd(4, height - 26);
    const angle = rnd(-18, 18).toFixed(1);
    const scale = rnd(1.0, 1.25).toFixed(2);
    const c = colors[crypto.randomInt(0, colors.length)];
    const d = [...DIGITS[digit]]
      .map((s) => {
        const [x1, y1, x2, y2] = SEGMENTS[s].map((v) => v + rnd(-0.8, 0.8));
        return `M${x1.toFixed(1)} ${y1.toFixed(1)}L${x2.toFixed(1)} ${y2.toFixed(1)}`;
      })
      .join('');
    parts.push(
      `<path transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) rotate(${angle} 5 9) scale(${scale})" d="${d}" stroke="${c}" stroke-width="2.2" stroke-linecap="round" fill="none"/>`,
    );
  });
  for (let i = 0; i < 30; i++) {
    parts.push(`<circle cx="${rnd(0, width).toFixed(1)}" cy="${rnd(0, height).toFixed(1)}" r="${rnd(0.5, 1.3).toFixed(1)}" fill="${colors[crypto.randomInt(0, colors.length)]}" opacity="0.5"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
