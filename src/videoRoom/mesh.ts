/**
 * The peer-to-peer mesh (no media server): one RTCPeerConnection per other participant,
 * each sending our camera and microphone and receiving theirs. Whoever is already in
 * the room calls a newcomer; later renegotiation follows the "perfect negotiation"
 * pattern (the peer with the smaller id is the polite one), so two offers crossing
 * never wedge a call. Screen sharing replaces the camera's track in place: no new
 * negotiation, and the camera comes back when sharing stops.
 */
import type { RoomSocket } from './socket';

export interface RemotePeer {
  peerId: string;
  user: { id: number; name: string };
  stream: MediaStream;
  pc: RTCPeerConnection;
}

/** Who listens to a room's media changing (the screen reads the remote peers again). */
export class Changes {
  private listeners = new Set<() => void>();

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(): void {
    for (const fn of this.listeners) fn();
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** How the room's media goes: this mesh, or Janus (./sfu.ts). The screen reads the remote peers and shares a screen through it. */
export interface RoomMedia {
  list(): RemotePeer[];
  subscribe(fn: () => void): () => void;
  /** Sends `track` instead of the camera (a shared screen), or the camera again (undefined). */
  replaceVideo(track: MediaStreamTrack | undefined): Promise<void>;
  close(): void;
}

export class Mesh implements RoomMedia {
  private peers = new Map<string, RemotePeer & { makingOffer: boolean; ignoreOffer: boolean; polite: boolean }>();
  private changes = new Changes();
  private unsubscribe: Array<() => void> = [];
  private outgoing?: MediaStreamTrack;

  constructor(
    private socket: RoomSocket,
    private selfId: string,
    private local: MediaStream | undefined,
    private iceServers: RTCIceServer[],
  ) {
    this.unsubscribe.push(
      socket.on('join', (m) => this.call(m.peerId, m.user)),
      socket.on('leave', (m) => this.drop(m.peerId)),
      socket.on('signal', (m) => void this.signal(m.from, m.user, m.data)),
    );
  }

  list(): RemotePeer[] {
    return [...this.peers.values()];
  }

  subscribe(fn: () => void): () => void {
    return this.changes.subscribe(fn);
  }

  /** Sends `track` instead of the camera (a shared screen), or the camera again (undefined). */
  async replaceVideo(track: MediaStreamTrack | undefined): Promise<void> {
    this.outgoing = track;
    const camera = this.local?.getVideoTracks()[0];
    for (const p of this.peers.values()) {
      const sender = p.pc.getSenders().find((s) => s.track?.kind === 'video' || (s.track === null && p.pc.getTransceivers().some((t) => t.sender === s && t.receiver.track.kind === 'video')));
      if (sender) await sender.replaceTrack(track ?? camera ?? null);
    }
  }

  close(): void {
    for (const off of this.unsubscribe) off();
    for (const id of [...this.peers.keys()]) this.drop(id);
    this.changes.clear();
  }

  private changed() {
    this.changes.emit();
  }

  private connection(peerId: string, user: RemotePeer['user']) {
    const held = this.peers.get(peerId);
    if (held) return held;
    const pc = new RTCPeerConnection({ iceServers: this.iceServers });
    const peer = { peerId, user, stream: new MediaStream(), pc, makingOffer: false, ignoreOffer: false, polite: this.selfId < peerId };
    this.peers.set(peerId, peer);
    const tracks = this.local?.getTracks() ?? [];
    for (const track of tracks) pc.addTrack(track.kind === 'video' && this.outgoing ? this.outgoing : track, this.local!);
    // Without a camera we still receive theirs.
    if (!tracks.some((t) => t.kind === 'video')) pc.addTransceiver('video', { direction: 'recvonly' });
    if (!tracks.some((t) => t.kind === 'audio')) pc.addTransceiver('audio', { direction: 'recvonly' });
    pc.ontrack = (e) => {
      if (!peer.stream.getTracks().includes(e.track)) peer.stream.addTrack(e.track);
      this.changed();
    };
    pc.onicecandidate = (e) => this.socket.send({ type: 'signal', to: peerId, data: { candidate: e.candidate?.toJSON() ?? null } });
    pc.onnegotiationneeded = async () => {
      try {
        peer.makingOffer = true;
        await pc.setLocalDescription();
        this.socket.send({ type: 'signal', to: peerId, data: { description: pc.localDescription?.toJSON() } });
      } finally {
        peer.makingOffer = false;
      }
    };
    pc.onconnectionstatechange = () => this.changed();
    this.changed();
    return peer;
  }

  /** A newcomer: we were here first, so we call (adding tracks starts the offer). */
  private call(peerId: string, user: RemotePeer['user']) {
    this.connection(peerId, user);
  }

  private async signal(peerId: string, user: RemotePeer['user'], data: { description?: RTCSessionDescriptionInit; candidate?: RTCIceCandidateInit | null }) {
    const peer = this.connection(peerId, user);
    const { pc } = peer;
    if (data.description) {
      const collision = data.description.type === 'offer' && (peer.makingOffer || pc.signalingState !== 'stable');
      peer.ignoreOffer = !peer.polite && collision;
      if (peer.ignoreOffer) return;
      await pc.setRemoteDescription(data.description);
      if (data.description.type === 'offer') {
        await pc.setLocalDescription();
        this.socket.send({ type: 'signal', to: peerId, data: { description: pc.localDescription?.toJSON() } });
      }
    } else if (data.candidate) {
      try {
        await pc.addIceCandidate(data.candidate);
      } catch (e) {
        if (!peer.ignoreOffer) throw e;
      }
    }
  }

  private drop(peerId: string) {
    const peer = this.peers.get(peerId);
    if (!peer) return;
    peer.pc.close();
    this.peers.delete(peerId);
    this.changed();
  }
}
