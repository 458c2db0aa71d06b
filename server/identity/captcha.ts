/**
 * The graphic captcha: four characters drawn by svg-captcha as font outlines, then
 * made harder for scripts than the library's output alone. Each glyph is turned about
 * its centre, the whole picture is bent by a random wave, and the glyphs and a few
 * filled decoy strokes become one path in one colour: no element, colour or font
 * outline says where a character is. The answer stays in the database (captcha
 * table, short-lived, single use), never in the markup.
 */
import crypto from 'node:crypto';
import svgCaptcha, { type ConfigObject } from 'svg-captcha';

// The package's types leave out its main export: the function that draws a given text.
const drawText = svgCaptcha as unknown as (text: string, options: ConfigObject) => string;

/** Letters and digits that cannot be mistaken for one another (no 0/O, 1/I, 2/Z, 5/S, 6/G, 8/B). */
const ALPHABET = '34679ACDEFHJKLMNPRTUVWXY';
const WIDTH = 120;
const HEIGHT = 40;

const rnd = (min: number, max: number) => min + (crypto.randomInt(0, 1_000_000) / 1_000_000) * (max - min);

export function randomCaptchaText(length = 4): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[crypto.randomInt(0, ALPHABET.length)];
  return out;
}

/** What a typed answer is compared as: case and surrounding spaces do not matter. */
export function normalizeCaptchaAnswer(text: string): string {
  return text.trim().toUpperCase();
}

const PAIR = /(-?\d+(?:\.\d+)?)[ ,](-?\d+(?:\.\d+)?)/g;

/** Applies f to every absolute coordinate pair of path data (svg-captcha writes only absolute M/L/Q/C/Z). */
function mapPoints(d: string, f: (x: number, y: number) => [number, number]): string {
  return d.replace(PAIR, (_m, x: string, y: string) => {
    const [nx, ny] = f(Number(x), Number(y));
    return `${nx.toFixed(1)} ${ny.toFixed(1)}`;
  });
}

function points(d: string): Array<[number, number]> {
  return [...d.matchAll(PAIR)].map((m) => [Number(m[1]), Number(m[2])]);
}

/** A thin closed band along a random curve, drawn with the glyphs' fill so it cannot be told apart by style. */
function decoyStroke(): string {
  const x0 = rnd(0, 30);
  const y0 = rnd(8, HEIGHT - 8);
  const x1 = rnd(45, 75);
  const y1 = rnd(0, HEIGHT);
  const x2 = rnd(WIDTH - 30, WIDTH);
  const y2 = rnd(8, HEIGHT - 8);
  const w = rnd(0.8, 1.2);
  return `M${x0.toFixed(1)} ${y0.toFixed(1)}Q${x1.toFixed(1)} ${y1.toFixed(1)} ${x2.toFixed(1)} ${y2.toFixed(1)}L${x2.toFixed(1)} ${(y2 + w).toFixed(1)}Q${x1.toFixed(1)} ${(y1 + w).toFixed(1)} ${x0.toFixed(1)} ${(y0 + w).toFixed(1)}Z`;
}

export function renderCaptcha(answer: string): string {
  const raw = drawText(answer, { width: WIDTH, height: HEIGHT, fontSize: 40, noise: 2, color: true, background: '#f5f7fa' });
  const glyphs: string[] = [];
  const others = raw.replace(/<path fill="[^"]*" d="([^"]*)"\/>/g, (_m, d: string) => {
    const pts = points(d);
    const cx = pts.reduce((s, p) => s + p[0], 0) / pts.length;
    const cy = pts.reduce((s, p) => s + p[1], 0) / pts.length;
    const a = (rnd(-15, 15) * Math.PI) / 180;
    const [cos, sin] = [Math.cos(a), Math.sin(a)];
    glyphs.push(mapPoints(d, (x, y) => [cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos]));
    return '';
  });
  for (let i = 0; i < 2; i++) glyphs.push(decoyStroke());
  // One wave over everything the glyph path holds, so no outline keeps the font's shape.
  const [ax, ay, fx, fy, px, py] = [rnd(1, 2), rnd(1.5, 2.5), rnd(0.08, 0.14), rnd(0.05, 0.09), rnd(0, 6.3), rnd(0, 6.3)];
  const bent = mapPoints(glyphs.join(''), (x, y) => [x + ax * Math.sin(y * fx + px), y + ay * Math.sin(x * fy + py)]);
  const hue = crypto.randomInt(0, 360);
  const svg = others.replace('</svg>', `<path fill="hsl(${hue},60%,30%)" stroke="hsl(${hue},60%,30%)" stroke-width="0.7" d="${bent}"/></svg>`);
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
