/**
 * The video room in a test browser (tests/browser/videoRoom*.test.ts): Chromium's flags
 * for a fake camera and microphone with real host candidates, a probe that keeps every
 * RTCPeerConnection the page makes, what those connections decoded and over which
 * addresses, and entering a consultation's room already signed in.
 */
import type { Page } from 'playwright-core';
import app from '../../config/app.json';
import { authed, login } from './auth';
import { openBrowser, type BrowserSession } from './browser';
import { approvedConsultation } from './consult';
import type { InProcessPlatform } from './inprocess';

export const FAKE_MEDIA = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'];
/** Host candidates with their addresses, not mDNS names: the peers must pair them without a resolver. */
export const REAL_CANDIDATES = ['--disable-features=WebRtcHideLocalIpsWithMdns'];

/** A Chromium with a fake camera and microphone whose host candidates carry their addresses. */
export const openCallerBrowser = () => openBrowser({ args: [...FAKE_MEDIA, ...REAL_CANDIDATES] });

/** Keeps every RTCPeerConnection the page makes (installed before any page script). */
export const PEER_PROBE = `(() => {
  const Native = window.RTCPeerConnection;
  const all = (window.__peers = []);
  window.RTCPeerConnection = class extends Native {
    constructor(...args) { super(...args); all.push(this); }
  };
})();`;

/** Frames of remote video this page has decoded, over all its live connections. */
export const framesDecoded = (page: Page) =>
  page.evaluate(async () => {
    let frames = 0;
    for (const pc of (window as unknown as { __peers: RTCPeerConnection[] }).__peers) {
      if (pc.connectionState === 'closed') continue;
      (await pc.getStats()).forEach((s) => {
        if (s.type === 'inbound-rtp' && s.kind === 'video') frames += s.framesDecoded ?? 0;
      });
    }
    return frames;
  });

/**
 * Waits until the page has decoded remote video. Playwright's predicate is synchronous
 * (a returned promise counts as true at once), and getStats is not: each poll starts a
 * read of the stats, and the predicate answers from the last one that came back.
 */
export const decodesVideo = (page: Page, timeout = 60_000) =>
  page.waitForFunction(
    () => {
      const w = window as unknown as { __peers: RTCPeerConnection[]; __framesRead?: Promise<void>; __frames?: number };
      w.__framesRead ??= Promise.all(w.__peers.map((pc) => pc.getStats()))
        .then((all) => {
          let frames = 0;
          for (const stats of all) {
            stats.forEach((s) => {
              if (s.type === 'inbound-rtp' && s.kind === 'video') frames += s.framesDecoded ?? 0;
            });
          }
          w.__frames = frames;
        })
        .catch(() => undefined)
        .finally(() => (w.__framesRead = undefined));
      return (w.__frames ?? 0) > 0;
    },
    undefined,
    { timeout, polling: 200 },
  );

/**
 * The addresses of the candidate pair each open connection uses ("local>remote"), once
 * every one of them is connected. Decoding the other's video says only that the
 * receiving connection is up; the sending one may still be checking its pairs.
 */
export async function pairedAddresses(page: Page, timeout = 60_000): Promise<string[]> {
  await page.waitForFunction(
    () => (window as unknown as { __peers: RTCPeerConnection[] }).__peers.every((pc) => pc.connectionState === 'connected' || pc.connectionState === 'closed'),
    undefined,
    { timeout },
  );
  return page.evaluate(async () => {
    const out: string[] = [];
    for (const pc of (window as unknown as { __peers: RTCPeerConnection[] }).__peers) {
      if (pc.connectionState !== 'connected') continue;
      const stats = await pc.getStats();
      stats.forEach((s) => {
        if (s.type !== 'candidate-pair' || s.state !== 'succeeded' || !s.nominated) return;
        out.push(`${stats.get(s.localCandidateId)?.address}>${stats.get(s.remoteCandidateId)?.address}`);
      });
    }
    return out;
  });
}

/**
 * Opens the consultation's room signed in with `token` (from the API's login): the
 * token is where the app keeps it before any page script runs, so no login screen is
 * in the way (the login itself is the identity tests'); the peer probe goes in too.
 */
export async function enterRoom(b: BrowserSession, baseUrl: string, token: string, consultationId: number): Promise<void> {
  await b.context.addInitScript(PEER_PROBE);
  await b.context.addInitScript(({ key, value }) => window.localStorage.setItem(key, value), { key: app.tokenStorageKey, value: token });
  await b.page.goto(`${baseUrl}/consultationRoom?id=${consultationId}`);
  await b.page.getByTestId('video-room').waitFor({ timeout: 90_000 });
}

/**
 * A room to start a test from: the browsers of an earlier try closed, a new consultation
 * between the administrator (13800000001) and the central expert (13800000006) with its
 * room started on `studyUid`, and two new caller browsers. A test's retry
 * (tests/support/retryBrowser.js) starting here does not meet the first try's pages in a
 * room whose presenter is already chosen.
 */
export async function freshRoom(
  server: InProcessPlatform,
  studyUid: string,
  earlier: Array<BrowserSession | undefined>,
): Promise<{ consultationId: number; sfu: string; admin: BrowserSession; expert: BrowserSession }> {
  for (const b of earlier) await b?.close();
  const consultationId = await approvedConsultation(server.db, '13800000001', ['13800000006']);
  const started = await server.app.inject({
    method: 'POST',
    url: '/api/consult/v1/video/room',
    headers: authed(await login(server.app, '13800000001')),
    payload: { consultationId, studyUids: [studyUid] },
  });
  if (started.json().status !== '0') throw new Error(`the room did not start: ${started.body}`);
  return { consultationId, sfu: started.json().data.sfu, admin: await openCallerBrowser(), expert: await openCallerBrowser() };
}
