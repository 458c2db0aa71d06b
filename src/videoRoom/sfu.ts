/**
 * The media through Janus's VideoRoom (the welcome says `sfu: 'janus'`; the server side
 * is server/video/janus.ts): one sending connection, the publisher, whose offer the
 * server publishes and Janus answers; and one receiving connection per other
 * participant's feed, offered by Janus through the server and answered here. Everything
 * goes over the room's own socket (`type: 'sfu'` messages). Screen sharing replaces the
 * publisher's camera track in place, as in the mesh.
 */
import { Changes, type RemotePeer, type RoomMedia } from './mesh';
import type { RoomMessage, RoomSocket } from './socket';

type Candidate = RTCIceCandidateInit & { completed?: boolean };

export class JanusMedia implements RoomMedia {
  private publisher?: RTCPeerConnection;
  private feeds = new Map<number, RemotePeer>();
  private changes = new Changes();
  private unsubscribe: Array<() => void> = [];
  private closed = false;

  constructor(
    private socket: RoomSocket,
    private local: MediaStream | undefined,
    private iceServers: RTCIceServer[],
  ) {
    this.unsubscribe.push(
      socket.on('sfu', (m) => void this.message(m).catch((e) => console.warn('video room (janus)', e))),
      // A participant who left: whatever of theirs is still open goes (Janus also says so, per feed).
      socket.on('leave', (m) => {
        for (const [feed, p] of this.feeds) if (p.peerId === m.peerId) this.drop(feed);
      }),
    );
    if (local?.getTracks().length) void this.publish(local).catch((e) => console.warn('video room (janus) publish', e));
  }

  list(): RemotePeer[] {
    return [...this.feeds.values()];
  }

  subscribe(fn: () => void): () => void {
    return this.changes.subscribe(fn);
  }

  async replaceVideo(track: MediaStreamTrack | undefined): Promise<void> {
    // The transceiver's receiver track tells its kind even while the sender has no track.
    const sender = this.publisher?.getTransceivers().find((t) => t.receiver.track.kind === 'video')?.sender;
    await sender?.replaceTrack(track ?? this.local?.getVideoTracks()[0] ?? null);
  }

  close(): void {
    this.closed = true;
    for (const off of this.unsubscribe) off();
    this.publisher?.close();
    for (const feed of [...this.feeds.keys()]) this.drop(feed);
    this.changes.clear();
  }

  private changed() {
    this.changes.emit();
  }

  /** Our camera and microphone to Janus: send only (what we receive comes per feed). */
  private async publish(local: MediaStream): Promise<void> {
    const pc = new RTCPeerConnection({ iceServers: this.iceServers });
    this.publisher = pc;
    for (const track of local.getTracks()) pc.addTransceiver(track, { direction: 'sendonly', streams: [local] });
    pc.onicecandidate = (e) => this.socket.send({ type: 'sfu', op: 'trickle', candidate: e.candidate?.toJSON() ?? null });
    await pc.setLocalDescription(await pc.createOffer());
    if (this.closed) return;
    this.socket.send({ type: 'sfu', op: 'publish', jsep: { type: 'offer', sdp: pc.localDescription?.sdp } });
  }

  private async message(m: RoomMessage): Promise<void> {
    if (this.closed) return;
    switch (m.op) {
      case 'published':
        await this.publisher?.setRemoteDescription(m.jsep);
        return;
      case 'offer':
        await this.receive(m.feed, m.peerId, m.user, m.jsep);
        return;
      case 'gone':
        this.drop(m.feed);
        return;
      case 'trickle': {
        const candidate = m.candidate as Candidate | null;
        if (!candidate || candidate.completed) return;
        const pc = typeof m.feed === 'number' ? this.feeds.get(m.feed)?.pc : this.publisher;
        await pc?.addIceCandidate(candidate);
        return;
      }
      default:
    }
  }

  /** A feed Janus offers: a receiving connection, answered. */
  private async receive(feed: number, peerId: string, user: RemotePeer['user'], offer: RTCSessionDescriptionInit): Promise<void> {
    this.drop(feed);
    const pc = new RTCPeerConnection({ iceServers: this.iceServers });
    const peer: RemotePeer = { peerId, user, stream: new MediaStream(), pc };
    this.feeds.set(feed, peer);
    pc.ontrack = (e) => {
      if (!peer.stream.getTracks().includes(e.track)) peer.stream.addTrack(e.track);
      this.changed();
    };
    pc.onicecandidate = (e) => this.socket.send({ type: 'sfu', op: 'trickle', feed, candidate: e.candidate?.toJSON() ?? null });
    pc.onconnectionstatechange = () => this.changed();
    this.changed();
    await pc.setRemoteDescription(offer);
    await pc.setLocalDescription(await pc.createAnswer());
    if (this.feeds.get(feed) !== peer) return;
    this.socket.send({ type: 'sfu', op: 'answer', feed, jsep: { type: 'answer', sdp: pc.localDescription?.sdp } });
  }

  private drop(feed: number) {
    const peer = this.feeds.get(feed);
    if (!peer) return;
    peer.pc.close();
    this.feeds.delete(feed);
    this.changed();
  }
}
