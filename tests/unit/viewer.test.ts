/**
 * The viewer's pure parts (src/viewer), no browser. Scenarios:
 * - grids: a comparison of n studies opens side by side up to 3, then in rows up to 4x4
 * - presets: DICOM's LINEAR window both ways (W 1400 L 700 reads back as such), the CT
 *   presets' values
 * - WADO-RS metadata → stack: slices in space order (not arrival or instance order),
 *   one 'wadors:' id per frame of a multi-frame instance, its cine rate, syntaxes the
 *   browser cannot decode named
 * - the first instance of a metadata answer, found in its bytes as they come, in any
 *   chunks (braces and quotes inside strings, Chinese names), handed over from a stream
 *   before the body ends; none in `[]` or an object
 * - a frame as the platform's WADO-RS sends it (a one-part multipart/related body): its
 *   bytes (at an even offset, whatever the part head's length) and transfer syntax;
 *   anything else is left to the image loader
 * - drawing: WebGL with a GPU, the CPU where WebGL is a software rasterizer or missing,
 *   either when the page forces it
 * - overlay: DICOM's patient name and ID, or the server's masked ones when masked;
 *   slice, position and window lines; fitted to any height, the top and bottom corners
 *   never share a line (each keeps its first lines; a side needing fewer gives the
 *   rest to the other), everything at full height, nothing in a sliver
 * - keys: arrows, Page Up/Down, Home/End outside text fields only; Alt+arrows (image)
 *   and Alt+Page Up/Down (series) in a field too; Ctrl/Meta/Shift combinations and
 *   Alt+N/Alt+P are the page's; the next series runs through every study's series in
 *   the panel's order and stops at either end; every key of the help has its text
 * - launching: single screen navigates this tab; dual with "new window" opens one
 *   1920x1080 window when the screens API is not allowed, one per other screen (not
 *   the current one, at most 3) when it is, sharing a comparison's studies; a blocked
 *   pop-up falls back to this tab; /viewer addresses for an exam, studies and a comparison
 * - the exam list offers "view images" (image:view) and "compare images"
 *   (image:compare) once images are in; the dialog registry holds both launchers
 */
import { syntheticSeries } from '../../mock/dicom';
import '@/features';
import { dialogNames } from '@/schema/dialogs';
import { visibleRowActions } from '@/schema/rowActions';
import { views } from '@/shared/schema/views';
import { Readable } from 'node:stream';
import { multipartStream } from '../../server/dicomweb/multipart';
import { chooseBackend } from '@/viewer/backend';
import { buildStack, firstImageId, framePart, seriesInstances, sortInstances, instanceInfo, undecodableSyntaxes, type DicomJson } from '@/viewer/dicomweb';
import { cellCount, gridFor } from '@/viewer/layout';
import { autoLoads, FALLBACK_BOX, launchViewer, opensWindow, pickScreens, share, viewerPath, type ScreenBox } from '@/viewer/launch';
import { resources } from '../../locales';
import { READING_KEYS, readingCommand, stepSeries, type KeyInput } from '@/viewer/keys';
import { fitOverlay, OVERLAY_LINE, overlayOf } from '@/viewer/overlay';
import { firstElementScanner, readArrayBody } from '@/viewer/streamJson';
import { CT_PRESETS, toVoiRange, toWindowLevel, windowText } from '@/viewer/presets';
import type { ViewportInfo } from '@/viewer/types';

const t = (key: string, p?: Record<string, unknown>) => (p ? `${key}:${JSON.stringify(p)}` : key);

/** WADO-RS metadata of one instance, as the platform answers it. */
function meta(uid: string, n: number, z: number, extra: DicomJson = {}): DicomJson {
  return {
    '00080018': { vr: 'UI', Value: [uid] },
    '00080060': { vr: 'CS', Value: ['CT'] },
    '00200013': { vr: 'IS', Value: [n] },
    '00200032': { vr: 'DS', Value: [0, 0, z] },
    '00200037': { vr: 'DS', Value: [1, 0, 0, 0, 1, 0] },
    '00083002': { vr: 'UI', Value: ['1.2.840.10008.1.2.1'] },
    ...extra,
  };
}

describe('grids', () => {
  test('a comparison opens side by side up to 3 studies, then in rows up to 4x4', () => {
    expect([1, 2, 3, 4, 5, 7, 9, 12, 13, 16].map((n) => `${gridFor(n).rows}x${gridFor(n).columns}`)).toEqual([
      '1x1', '1x2', '1x3', '2x2', '2x3', '2x4', '3x3', '3x4', '4x4', '4x4',
    ]);
    for (let n = 1; n <= 16; n++) expect(cellCount(gridFor(n))).toBeGreaterThanOrEqual(n);
    expect(gridFor(40)).toEqual({ rows: 4, columns: 4 });
  });
});

describe('window presets', () => {
  test("DICOM's LINEAR window both ways", () => {
    expect(toVoiRange({ width: 1400, center: 700 })).toEqual({ lower: 0, upper: 1399 });
    expect(toWindowLevel({ lower: 0, upper: 1399 })).toEqual({ width: 1400, center: 700 });
    expect(windowText(toVoiRange({ width: 80, center: 40 }))).toEqual({ width: '80', center: '40' });
    expect(windowText(undefined)).toBeUndefined();
  });
  test('the CT presets', () => {
    expect(CT_PRESETS).toEqual({
      lung: { width: 1500, center: -600 },
      mediastinum: { width: 350, center: 50 },
      bone: { width: 2000, center: 500 },
      brain: { width: 80, center: 40 },
      abdomen: { width: 400, center: 50 },
    });
  });
});

describe('WADO-RS metadata to a stack', () => {
  test('slices in space order, whatever order they arrive or are numbered in', () => {
    const list = [meta('1.3', 1, 7.5), meta('1.1', 3, 2.5), meta('1.2', 2, 5)].map(instanceInfo);
    expect(sortInstances(list).map((i) => i.sopInstanceUid)).toEqual(['1.1', '1.2', '1.3']);
    // Without positions: instance number.
    const flat = [meta('2.2', 2, 0), meta('2.1', 1, 0)].map((m) => instanceInfo({ ...m, '00200032': undefined }));
    expect(sortInstances(flat).map((i) => i.sopInstanceUid)).toEqual(['2.1', '2.2']);
  });

  test("one 'wadors:' id per frame, the cine rate of a multi-frame instance, undecodable syntaxes named", () => {
    const us = meta('9.1', 1, 0, { '00280008': { vr: 'IS', Value: [3] }, '00181063': { vr: 'DS', Value: [40] }, '00080060': { vr: 'CS', Value: ['US'] } });
    const stack = buildStack('http://h:1/', '1.2.3', '1.2.3.4', [us]);
    expect(stack.imageIds).toEqual([1, 2, 3].map((f) => `wadors:http://h:1/dicom-web/studies/1.2.3/series/1.2.3.4/instances/9.1/frames/${f}`));
    expect(stack).toMatchObject({ modality: 'US', multiFrame: true, frameRate: 25, undecodable: [] });
    const mpeg = buildStack('', '1', '2', [meta('3.1', 1, 0, { '00083002': { vr: 'UI', Value: ['1.2.840.10008.1.2.4.100'] } })]);
    expect(mpeg.undecodable).toEqual(['1.2.840.10008.1.2.4.100']);
    const jpeg = buildStack('', '1', '2', [meta('3.2', 1, 0, { '00083002': { vr: 'UI', Value: ['1.2.840.10008.1.2.4.90'] } })]);
    expect(jpeg.undecodable).toEqual([]);
  });

  test('the image a stack opens on is known from the sorted instances, before the stack is built', () => {
    const metadata = [meta('5.3', 1, 7.5), meta('5.1', 3, 2.5, { '00280008': { vr: 'IS', Value: [2] } }), meta('5.2', 2, 5), { '00200013': { vr: 'IS', Value: [0] } }];
    const instances = seriesInstances(metadata);
    // The entry without a SOP Instance UID is left out.
    expect(instances.map((i) => i.sopInstanceUid)).toEqual(['5.1', '5.2', '5.3']);
    const first = firstImageId('http://h:1', '1.2', '1.2.5', instances[0].sopInstanceUid);
    expect(first).toBe('wadors:http://h:1/dicom-web/studies/1.2/series/1.2.5/instances/5.1/frames/1');
    expect(buildStack('http://h:1', '1.2', '1.2.5', metadata).imageIds[0]).toBe(first);
    const mixed = seriesInstances([meta('6.1', 1, 0), meta('6.2', 2, 1, { '00083002': { vr: 'UI', Value: ['1.2.840.10008.1.2.4.100'] } }), meta('6.3', 3, 2, { '00083002': { vr: 'UI', Value: ['1.2.840.10008.1.2.4.100'] } })]);
    expect(undecodableSyntaxes(mixed)).toEqual(['1.2.840.10008.1.2.4.100']);
  });
});

describe('the first instance of a metadata answer, read ahead', () => {
  /** Feeds the body in chunks of `size` bytes; the offset where the first element ends, or what the scanner said last. */
  const scanInChunks = (body: string, size: number) => {
    const bytes = new TextEncoder().encode(body);
    const scan = firstElementScanner();
    let last = -1;
    for (let at = 0; at < bytes.length && last === -1; at += size) last = scan(bytes.subarray(at, at + size));
    return { bytes, end: last };
  };

  test('found once its closing brace is in, whatever the chunks; braces, quotes and Chinese in strings do not count', () => {
    const first = meta('7.1', 1, 0, { '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Wang^Xiao}ming', Ideographic: '王小明 {"[' }] } });
    const body = JSON.stringify([first, meta('7.2', 2, 2.5)]);
    for (const size of [1, 3, 7, 64, body.length]) {
      const { bytes, end } = scanInChunks(body, size);
      expect(end).toBeGreaterThan(0);
      const text = new TextDecoder().decode(bytes.subarray(bytes.indexOf(0x7b), end));
      expect(JSON.parse(text)).toEqual(first);
    }
    // Not complete yet: nothing to hand over.
    expect(firstElementScanner()(new TextEncoder().encode(body.slice(0, 40)))).toBe(-1);
  });

  test('read from a stream: the first element handed over before the body ends, then the whole body', async () => {
    const body = JSON.stringify(Array.from({ length: 10 }, (_, k) => meta(`8.${k + 1}`, k + 1, k * 2.5)));
    const bytes = new TextEncoder().encode(body);
    const seen: string[] = [];
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(sent, sent + 100));
        sent += 100;
      },
    });
    const all = await readArrayBody(stream, (text) => seen.push(`${JSON.parse(text)['00080018'].Value[0]} at ${sent}`));
    expect(new TextDecoder().decode(all)).toBe(body);
    expect(seen).toHaveLength(1);
    // Handed over once its own bytes were in, long before the rest of the body.
    const [uid, at] = seen[0].split(' at ');
    expect(uid).toBe('8.1');
    expect(Number(at)).toBeLessThan(body.length / 2);
  });

  test('an empty answer or one that is not an array has no first element', () => {
    expect(scanInChunks('[]', 1).end).toBe(-2);
    expect(scanInChunks('{"a":{"b":1}}', 4).end).toBe(-2);
  });
});

describe('a frame in a multipart/related body', () => {
  const body = async (boundary: string, type: string, bytes: Buffer) => {
    const chunks: Buffer[] = [];
    for await (const chunk of multipartStream(boundary, [{ headers: { 'Content-Type': type }, body: bytes }]) as Readable) chunks.push(chunk as Buffer);
    return new Uint8Array(Buffer.concat(chunks));
  };
  const pixels = Buffer.from(Uint16Array.from({ length: 4096 }, (_, i) => (i * 37) % 4096).buffer);

  test('its bytes and transfer syntax, as the platform sends a frame', async () => {
    const frame = framePart(await body('rcloud-0123456789abcdef', 'application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1', pixels));
    expect(frame?.transferSyntaxUid).toBe('1.2.840.10008.1.2.1');
    expect(Buffer.from(frame!.pixelData)).toEqual(pixels);
    // A compressed frame keeps its own media type; a boundary of odd length still leaves the bytes where 16-bit words can view them.
    const packed = framePart(await body('odd-1', 'image/jls; transfer-syntax="1.2.840.10008.1.2.4.80"', pixels.subarray(0, 1001)));
    expect(packed?.transferSyntaxUid).toBe('1.2.840.10008.1.2.4.80');
    expect(packed!.pixelData.byteOffset % 2).toBe(0);
    expect(Buffer.from(packed!.pixelData)).toEqual(pixels.subarray(0, 1001));
    expect(new Uint16Array(frame!.pixelData.buffer, frame!.pixelData.byteOffset, 4096)[5]).toBe(185);
  });

  test('anything else is left to the image loader', async () => {
    expect(framePart(new Uint8Array(pixels))).toBeUndefined();
    expect(framePart(await body('b1', 'application/octet-stream', pixels))).toBeUndefined();
    const cut = await body('b2', 'application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1', pixels);
    expect(framePart(cut.subarray(0, cut.length - 20))).toBeUndefined();
  });
});

describe('drawing', () => {
  test('WebGL with a GPU; the CPU with a software rasterizer or no WebGL; forced either way by the page', () => {
    const gpu = { webgl: true, softwareRasterizer: false };
    const software = { webgl: true, softwareRasterizer: true };
    expect(chooseBackend(gpu)).toBe('gpu');
    expect(chooseBackend(software)).toBe('cpu');
    expect(chooseBackend({ webgl: false, softwareRasterizer: false })).toBe('cpu');
    expect(chooseBackend(software, 'gpu')).toBe('gpu');
    expect(chooseBackend(gpu, 'cpu')).toBe('cpu');
    expect(chooseBackend({ webgl: false, softwareRasterizer: false }, 'gpu')).toBe('cpu');
    expect(chooseBackend(gpu, 'fast')).toBe('gpu');
  });
});

describe('overlay', () => {
  const json: DicomJson = {
    ...meta('1.1', 1, 12.5),
    '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Zhang^San', Ideographic: '张三' }] },
    '00100020': { vr: 'LO', Value: ['P0001'] },
    '00201041': { vr: 'DS', Value: [12.5] },
  };
  const info: ViewportInfo = {
    id: 'vp-0', index: 4, total: 300, loaded: 300, rendered: true, rotation: 0, flipHorizontal: false, flipVertical: false, invert: false,
    playing: false, multiFrame: false, voi: toVoiRange({ width: 400, center: 50 }), zoom: 1, instance: instanceInfo(json),
  };
  const study = { studyUid: '1', patientName: '张*', patientId: '*****', series: [] };
  const lines = (o: ReturnType<typeof overlayOf>) => Object.fromEntries([...o.topLeft, ...o.topRight, ...o.bottomLeft, ...o.bottomRight].map((l) => [l.key, l.text]));

  test('unmasked: the DICOM name and ID; slice, position and window', () => {
    const o = lines(overlayOf(info, study, false, t));
    expect(o.patientName).toBe('张三 (Zhang San)');
    expect(o.patientId).toBe('P0001');
    expect(o.slice).toBe('entity.viewer.overlay.image:{"index":5,"total":300}');
    expect(o.location).toBe('entity.viewer.overlay.location:{"value":"12.5"}');
    expect(o.window).toBe('entity.viewer.overlay.window:{"width":"400","center":"50"}');
  });

  test('masked: the server’s masked name and ID, never the DICOM ones', () => {
    const o = overlayOf(info, study, true, t);
    const text = JSON.stringify(o);
    expect(lines(o).patientName).toBe('张*');
    expect(lines(o).patientId).toBe('*****');
    expect(text).not.toContain('张三');
    expect(text).not.toContain('Zhang');
    expect(text).not.toContain('P0001');
  });

  test('fitted to any height: top and bottom corners never share a line, the first lines stay', () => {
    const full = overlayOf(info, study, false, t);
    const rows = (o: typeof full) => ({
      top: Math.max(o.topLeft.length, o.topRight.length),
      bottom: Math.max(o.bottomLeft.length, o.bottomRight.length),
    });
    expect(fitOverlay(full, 1000)).toEqual(full);
    for (let height = 0; height <= 400; height += 7) {
      const fit = fitOverlay(full, height);
      const { top, bottom } = rows(fit);
      // The lines of both fit in the height, with the edges kept.
      expect((top + bottom) * OVERLAY_LINE).toBeLessThanOrEqual(Math.max(0, height - 8));
      // Each corner keeps its first lines, in order.
      expect(fit.bottomLeft).toEqual(full.bottomLeft.slice(0, fit.bottomLeft.length));
      expect(fit.topLeft).toEqual(full.topLeft.slice(0, fit.topLeft.length));
    }
    expect(rows(fitOverlay(full, 10))).toEqual({ top: 0, bottom: 0 });
    // A side needing fewer lines gives the rest to the other.
    const few = { ...full, topLeft: full.topLeft.slice(0, 1), topRight: [] };
    expect(rows(full).bottom).toBeGreaterThanOrEqual(2);
    expect(rows(fitOverlay(few, 8 + 3 * OVERLAY_LINE))).toEqual({ top: 1, bottom: 2 });
  });
});

describe('reading keys', () => {
  const press = (key: string, more: Partial<KeyInput> = {}) => readingCommand({ key, altKey: false, ctrlKey: false, metaKey: false, inField: false, ...more });

  test('plain keys outside a text field: image by image, by ten, to the ends', () => {
    expect(press('ArrowDown')).toEqual({ kind: 'image', delta: 1 });
    expect(press('ArrowLeft')).toEqual({ kind: 'image', delta: -1 });
    expect(press('PageDown')).toEqual({ kind: 'image', delta: 10 });
    expect(press('Home')).toEqual({ kind: 'imageAt', at: 'first' });
    expect(press('End')).toEqual({ kind: 'imageAt', at: 'last' });
    expect(press('ArrowDown', { inField: true })).toBeUndefined();
    expect(press('a')).toBeUndefined();
  });

  test('Alt keys also in a field: image and series; the page keeps its own', () => {
    expect(press('ArrowDown', { altKey: true, inField: true })).toEqual({ kind: 'image', delta: 1 });
    expect(press('ArrowUp', { altKey: true })).toEqual({ kind: 'image', delta: -1 });
    expect(press('PageDown', { altKey: true, inField: true })).toEqual({ kind: 'series', delta: 1 });
    expect(press('PageUp', { altKey: true })).toEqual({ kind: 'series', delta: -1 });
    // Alt+N / Alt+P (next report), Ctrl+S, Ctrl+PageDown and Shift+arrows (selecting text) are not the viewer's.
    expect(press('n', { altKey: true })).toBeUndefined();
    expect(press('s', { ctrlKey: true })).toBeUndefined();
    expect(press('PageDown', { ctrlKey: true })).toBeUndefined();
    expect(press('ArrowDown', { shiftKey: true })).toBeUndefined();
  });

  test('the next series runs through every study in the panel\'s order and stops at the ends', () => {
    const studies = [
      { studyUid: 's1', series: [{ seriesUid: 'a' }, { seriesUid: 'b' }] },
      { studyUid: 's2', series: [{ seriesUid: 'c' }] },
    ] as never;
    expect(stepSeries(studies, 'a', 1)).toEqual({ studyUid: 's1', seriesUid: 'b' });
    expect(stepSeries(studies, 'b', 1)).toEqual({ studyUid: 's2', seriesUid: 'c' });
    expect(stepSeries(studies, 'c', 1)).toBeUndefined();
    expect(stepSeries(studies, 'a', -1)).toBeUndefined();
    expect(stepSeries(studies, undefined, 1)).toEqual({ studyUid: 's1', seriesUid: 'a' });
  });

  test.each(['zh-CN', 'en-US', 'ru-RU'])('every key of the help has its text in %s', (lang) => {
    expect(READING_KEYS.filter((k) => resources[lang][`entity.viewer.keys.${k.does}`] === undefined)).toEqual([]);
  });
});

describe('launching the viewer', () => {
  const screen = (left: number) => ({ availLeft: left, availTop: 0, availWidth: 1920, availHeight: 1040 });
  /** A browser with these other screens (none: the screens API not allowed) whose window.open answers `result`. */
  const env = (screens: ScreenBox[] = [], result: Window | null = {} as Window) => {
    const opened: Array<[string, string, string]> = [];
    return {
      opened,
      open: (url: string, name: string, features: string) => {
        opened.push([url, name, features]);
        return result;
      },
      otherScreens: async () => screens,
    };
  };

  test('addresses and settings', () => {
    expect(viewerPath({ examId: 7 })).toBe('/viewer?exam=7');
    expect(viewerPath({ studyUids: ['1.2', '1.3'], compare: true })).toBe('/viewer?compare=1.2%2C1.3');
    expect(viewerPath({ studyUids: ['1.2'], compare: true }, true)).toBe('/viewer?studies=1.2&side=1');
    expect(viewerPath({ studyUids: ['1.2'], compare: false })).toBe('/viewer?studies=1.2');
    expect(opensWindow(undefined)).toBe(true);
    expect(opensWindow({ openModel: 'single', doubleConfig: ['newWindow'] })).toBe(false);
    expect(opensWindow({ openModel: 'double', doubleConfig: ['auto'] })).toBe(false);
    expect(autoLoads(undefined)).toBe(true);
    expect(autoLoads({ openModel: 'double', doubleConfig: ['newWindow'] })).toBe(false);
    expect(autoLoads({ openModel: 'single', doubleConfig: [] })).toBe(true);
    expect(share([1, 2, 3, 4, 5], 3)).toEqual([[1, 2], [3, 4], [5]]);
    expect(share([1, 2], 3)).toEqual([[1], [2]]);
  });

  test('the other screens: not the current one, at most 3', () => {
    const all = [screen(0), screen(1920), screen(3840), screen(5760), screen(7680)];
    expect(pickScreens({ screens: all, currentScreen: all[1] }).map((b) => b.left)).toEqual([0, 3840, 5760]);
    expect(pickScreens({ screens: [all[0]], currentScreen: all[0] })).toEqual([]);
  });

  test('single screen: this tab', async () => {
    const e = env();
    const went: string[] = [];
    await launchViewer({ examId: 3 }, { openModel: 'single', doubleConfig: [] }, (p) => went.push(p), e);
    expect(went).toEqual(['/viewer?exam=3']);
    expect(e.opened).toEqual([]);
  });

  test('dual screen without the screens API allowed: one 1920x1080 window', async () => {
    const e = env();
    const went: string[] = [];
    await launchViewer({ examId: 3 }, undefined, (p) => went.push(p), e);
    expect(FALLBACK_BOX).toEqual({ left: 0, top: 0, width: 1920, height: 1080 });
    expect(e.opened).toEqual([['/viewer?exam=3', 'rcloud-viewer-0', 'popup,left=0,top=0,width=1920,height=1080']]);
    expect(went).toEqual([]);
  });

  test('dual screen with other screens: a window on each, the comparison shared out', async () => {
    const boxes = pickScreens({ screens: [screen(0), screen(1920), screen(3840), screen(5760)], currentScreen: screen(-1) }).slice(1);
    const e = env(boxes);
    await launchViewer({ studyUids: ['a', 'b', 'c', 'd', 'e'], compare: true }, undefined, () => undefined, e);
    expect(e.opened).toEqual([
      ['/viewer?studies=a%2Cb%2Cc&side=1', 'rcloud-viewer-0', 'popup,left=1920,top=0,width=1920,height=1040'],
      ['/viewer?studies=d%2Ce&side=1', 'rcloud-viewer-1', 'popup,left=3840,top=0,width=1920,height=1040'],
    ]);
    // One study: one window, on the first other screen.
    const one = env(boxes);
    await launchViewer({ examId: 4 }, undefined, () => undefined, one);
    expect(one.opened).toEqual([['/viewer?exam=4', 'rcloud-viewer-0', 'popup,left=1920,top=0,width=1920,height=1040']]);
  });

  test('a blocked pop-up: this tab', async () => {
    const went: string[] = [];
    await launchViewer({ examId: 5 }, undefined, (p) => went.push(p), env([], null));
    expect(went).toEqual(['/viewer?exam=5']);
  });
});

describe('entries', () => {
  test('the exam list: view images with image:view, compare with image:compare, once images are in', () => {
    const keys = (row: Record<string, unknown>, map: Record<string, string[]>) =>
      visibleRowActions(views.exam, row, map).map((a) => a.key).filter((k) => k === 'viewImages' || k === 'compareImages');
    const row = { id: 5, hospitalId: 2, examState: 2, imageStatus: 1, hidden: false };
    expect(keys(row, { registration: ['view'], image: ['view', 'compare'] })).toEqual(['viewImages', 'compareImages']);
    expect(keys(row, { registration: ['view'], image: ['view'] })).toEqual(['viewImages']);
    expect(keys({ ...row, imageStatus: 0 }, { registration: ['view'], image: ['view', 'compare'] })).toEqual([]);
    expect(dialogNames()).toEqual(expect.arrayContaining(['ViewerLauncher', 'CompareStudies']));
  });

  test('the synthetic CT the browser test and bench use carries PixelSpacing 0.7', () => {
    const bytes = syntheticSeries({ count: 1 }).instances[0].bytes.toString('latin1');
    expect(bytes).toContain('0.7\\0.7');
  });
});
