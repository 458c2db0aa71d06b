/**
 * The video consultation room through Janus (JANUS_URL; issue #20 item 6) in two
 * Chromium instances with fake camera and microphone: Debian's Janus started for this
 * file (tests/support/janus.ts) gathers its ICE candidates only on the test's veth
 * addresses (tests/support/videoNetwork.ts: ICE does not pair loopback). The platform's
 * administrator starts the room of a consultation on a small CT and joins; the central
 * hospital's expert joins.
 * - each browser has one sending connection (to Janus) and one receiving connection for
 *   the other's feed; each decodes the other's video (getStats: inbound-rtp video
 *   framesDecoded > 0) and every connection runs to Janus's address on the veth pair
 * - the room's UI is the mesh's: the tiles, the presenter, chat to the other side
 * - the expert leaves: the administrator's tile of the expert goes, Janus's room
 *   holds the administrator alone
 * - Janus goes away: the administrator's room ends with VIDEO003 in their language
 * Screenshots: tests/.artifacts/video-room-janus-*.png.
 */
import { translate } from '../../locales';
import { syntheticSeries } from '../../mock/dicom';
import { login } from '../support/auth';
import type { BrowserSession } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';
import { startJanus, type JanusProcess } from '../support/janus';
import { addVideoNetwork, type VideoNetwork } from '../support/videoNetwork';
import { decodesVideo, enterRoom, framesDecoded, freshRoom, pairedAddresses } from '../support/videoPage';

/** How many RTCPeerConnections of each direction the page holds open. */
const connections = (b: BrowserSession) =>
  b.page.evaluate(() => {
    const open = (window as unknown as { __peers: RTCPeerConnection[] }).__peers.filter((pc) => pc.connectionState !== 'closed');
    const sending = open.filter((pc) => pc.getTransceivers().some((t) => t.currentDirection === 'sendonly'));
    const receiving = open.filter((pc) => pc.getTransceivers().some((t) => t.currentDirection === 'recvonly'));
    return { sending: sending.length, receiving: receiving.length };
  });

describe('the video consultation room through Janus in two Chromium instances', () => {
  let server: InProcessPlatform;
  let network: VideoNetwork;
  let janus: JanusProcess;
  let admin: BrowserSession;
  let expert: BrowserSession;
  let consultationId: number;
  let studyUid: string;
  const stamp = Date.now() % 99999;
  const join = async (b: BrowserSession, mobile: string) => enterRoom(b, server.url, await login(server.app, mobile), consultationId);

  beforeAll(async () => {
    network = addVideoNetwork();
    // Janus's candidates on the veth addresses only, where the browsers can reach them.
    janus = await startJanus({ iceEnforce: network.addresses });
    server = await startInProcess({ JANUS_URL: janus.url });
    const central = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'CENTRAL'")).rows[0].id;
    const series = syntheticSeries({ uidRoot: `1.2.826.0.1.3680043.10.1082.8${stamp}`, count: 12, rows: 128, columns: 128, studyDescription: 'Consultation CT' });
    for (const inst of series.instances) await server.app.archive.storeBuffer(inst.bytes, { hospitalId: central, sender: 'CONSULT' });
    studyUid = series.studyUid;
  }, 300_000);

  afterAll(async () => {
    for (const b of [admin, expert]) await b?.close();
    await server?.close();
    await janus?.stop();
    network?.remove();
  });

  test('both join through Janus and each decodes the other’s video, over the veth addresses', async () => {
    let sfu: string;
    ({ consultationId, sfu, admin, expert } = await freshRoom(server, studyUid, [admin, expert]));
    expect(sfu).toBe('janus');
    await join(admin, '13800000001');
    await admin.page.locator('[data-testid=video-room][data-presenting=true]').waitFor({ timeout: 60_000 });
    await join(expert, '13800000006');
    await expert.page.locator('[data-testid=video-room][data-presenting=false]').waitFor({ timeout: 60_000 });
    for (const b of [admin, expert]) {
      await b.page.getByTestId('video-local').waitFor({ timeout: 60_000 });
      await b.page.locator('[data-testid=video-remote][data-state=connected]').waitFor({ timeout: 90_000 });
      await decodesVideo(b.page, 90_000);
      expect(await framesDecoded(b.page)).toBeGreaterThan(0);
      // Through Janus: our camera goes up one connection, the other's comes down another.
      expect(await connections(b)).toEqual({ sending: 1, receiving: 1 });
      // A pair (or more: Janus's ICE agent may nominate several) on each of the two connections.
      const pairs = await pairedAddresses(b.page);
      expect(pairs.length).toBeGreaterThanOrEqual(2);
      // Janus's end of every pair is on the veth pair (its enforce list), never loopback.
      for (const pair of pairs) expect(network.addresses).toContain(pair.split('>')[1]);
    }
    await admin.page.locator('[data-testid=viewport][data-rendered=true]').first().waitFor({ timeout: 60_000 });
    await admin.shot('video-room-janus-admin');
    await expert.shot('video-room-janus-expert');
  }, 240_000);

  test('chat reaches the other side; the expert leaves and the administrator’s tile of them goes', async () => {
    await expert.page.getByTestId('room-chat-input').fill('经 Janus 转发');
    await expert.page.getByTestId('room-chat-send').click();
    await admin.page.getByTestId('room-chat-line').filter({ hasText: '经 Janus 转发' }).waitFor({ timeout: 30_000 });
    await expert.page.getByTestId('room-leave').click();
    await admin.page.getByTestId('video-remote').waitFor({ state: 'detached', timeout: 60_000 });
    // The administrator still sends (its publisher) and receives nothing.
    expect(await connections(admin)).toEqual({ sending: 1, receiving: 0 });
  }, 120_000);

  test('Janus goes away: the room ends with VIDEO003, in the user’s language', async () => {
    await janus.stop();
    const refused = admin.page.locator('[data-testid=room-refused][data-code=VIDEO003]');
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.textContent()).toBe(translate('zh-CN', 'error.VIDEO003'));
    await admin.shot('video-room-janus-gone');
  }, 120_000);
});
