/**
 * The DICOM network listener (DIMSE over TCP): C-ECHO, C-STORE into the archive and
 * Modality Worklist C-FIND, for the modalities registered in /deviceList. The device a
 * calling AE title belongs to (looked up per association, so a new device works at
 * once) decides the hospital of what it stores and the worklist it sees; every
 * association attempt is logged in dicom_association_log.
 *
 * dcmjs-dimse runs the association (negotiation, release, abort), C-ECHO and C-FIND.
 * C-STORE has a receive path of its own (pdu.ts): the socket's bytes are cut into PDUs
 * here, the values of a C-STORE's dataset go straight to a temp file behind its
 * Part-10 meta header (no copy, no reassembly of the instance in memory), the rest is
 * handed to dcmjs-dimse as whole PDUs through a stand-in socket. The archive indexes
 * the file before Success is sent: an acknowledged instance survives a crash. Touches
 * the archive, the device, worklist and association log tables, and nothing else.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { constants, Dataset, Implementation, log as dimseLog, responses, Scp, type association, type requests } from 'dcmjs-dimse';
import { InstanceRefusedError, InvalidDicomError, SopInstanceMismatchError, type Arrival } from '../pacs/archive';
import { IMPLEMENTATION_CLASS_UID, IMPLEMENTATION_VERSION, part10Prefix } from '../pacs/dicomFile';
import { MODALITY_WORKLIST_FIND, negotiate } from './negotiation';
import { COMMAND, encodeAbort, encodePData, parseCommand, PDU, PduReader, ProtocolError, storeResponse, type Command } from './pdu';
import { findWorklist, WorklistQueryError } from './worklist';

type Association = association.Association;
type PresentationContext = association.PresentationContext;
const { CEchoResponse, CFindResponse, CStoreResponse } = responses;
const { AbortReason, AbortSource, PresentationContextResult, RejectReason, RejectResult, RejectSource } = constants;

/** DIMSE status codes (PS3.7 C, PS3.4 B.2.3 and C.4.1.1.4). */
export const STATUS = {
  success: 0x0000,
  pending: 0xff00,
  sopClassNotSupported: 0x0122,
  outOfResources: 0xa700,
  /** "Cannot understand" (C-STORE) / "Unable to process" (C-FIND). */
  cannotUnderstand: 0xc000,
  /** Also "Cannot understand": the dataset is not the instance the command announced. */
  instanceMismatch: 0xc001,
  /** Duplicate SOP Instance (PS3.7 C): the UID is stored with other content. */
  duplicateDifferent: 0x0111,
  /** "Data Set does not match": its Study Instance UID is stored for another patient. */
  otherPatient: 0xa900,
} as const;

/** Why an association was refused, as logged in dicom_association_log.reason. */
export type RefusalReason = 'calledAeNotRecognized' | 'callingAeNotRecognized' | 'addressMismatch' | 'lookupFailed';

export interface DicomListenerOptions {
  aeTitle: string;
  /** 0 takes any free port (tests); the listener reports the one it got. */
  port: number;
  host?: string;
}

export interface DicomListener {
  port: number;
  /** Stops accepting, lets running stores and queries finish, then drops the connections. */
  close(): Promise<void>;
}

interface Sender {
  deviceId: number;
  hospitalId: number;
  aeTitle: string;
}

interface ListenerContext {
  app: FastifyInstance;
  aeTitle: string;
  log: FastifyBaseLogger;
  /** Stores and queries under way: closing waits for them before the database goes. */
  inflight: Set<Promise<unknown>>;
}

/**
 * dcmjs-dimse times out a connection without an association request after this long,
 * one idle between PDUs (a sender waiting for our reply is idle too), and a socket
 * without any traffic.
 */
const TIMEOUTS = { associationTimeout: 30_000, pduTimeout: 300_000, connectTimeout: 300_000 };
/**
 * The longest P-DATA-TF the listener takes, announced at association (PS3.8 D.1): a
 * CT slice comes in one or two PDUs instead of the 32 a 16 KB limit makes.
 */
const RECEIVE_MAX_PDU = 1 << 20;
/** A command set is a few hundred bytes; anything near this is not one. */
const MAX_COMMAND = 64 * 1024;

/** IPv4 peers on a dual-stack socket appear as ::ffff:a.b.c.d. */
export function normalizeAddress(address: string | undefined | null): string {
  const a = (address ?? '').trim().toLowerCase();
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

const isLoopback = (a: string) => a === '::1' || a.startsWith('127.');

/** A device's registered IP against the peer's: loopback is one host whichever family the client used. */
function sameHost(registered: string, peer: string): boolean {
  const r = normalizeAddress(registered);
  return r === peer || (isLoopback(r) && isLoopback(peer));
}

/**
 * What dcmjs-dimse takes for its socket: it reads the PDUs the listener hands it
 * ('data') and the socket's events, and its writes go to the real socket.
 */
class DimseSocket extends EventEmitter {
  constructor(private readonly peer: net.Socket) {
    super();
    for (const event of ['error', 'timeout', 'close']) peer.on(event, (...args: unknown[]) => this.emit(event, ...args));
  }

  write(bytes: Buffer): boolean {
    return this.peer.destroyed ? false : this.peer.write(bytes);
  }

  setTimeout(ms: number): this {
    this.peer.setTimeout(ms);
    return this;
  }
}

/** One C-STORE whose dataset is arriving: the archive writes it as it comes. */
class IncomingStore {
  constructor(
    readonly command: Command,
    readonly contextId: number,
    readonly arrival: Arrival,
  ) {}
}

/** A message passed on to dcmjs-dimse whose dataset is still arriving. */
interface Forwarded {
  contextId: number;
  parts: Buffer[];
  bytes: number;
}

/** One association: dcmjs-dimse drives the protocol, this class answers it and receives C-STOREs itself. */
class Connection extends Scp {
  private sender: Sender | undefined;
  /** The association once accepted: C-STORE values on its accepted contexts are taken. */
  private accepted: Association | undefined;
  // Named apart from dcmjs-dimse's own fields (it keeps `dimse`, `socket`, `association`…).
  private readonly reader: PduReader;
  private readonly dimseSocket: DimseSocket;
  private commandParts: Buffer[] = [];
  private commandBytes = 0;
  /** The message whose dataset is arriving: stored here, or passed on to dcmjs-dimse. */
  private receiving: IncomingStore | Forwarded | undefined;
  /** Replies and handed-on PDUs in arrival order: a C-STORE-RSP still waiting for the archive goes out first. */
  private ordered: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly peer: net.Socket,
    private readonly ctx: ListenerContext,
  ) {
    const dimse = new DimseSocket(peer);
    super(dimse as unknown as net.Socket, TIMEOUTS);
    this.dimseSocket = dimse;
    this.reader = new PduReader({ pdu: (bytes, type) => this.onPdu(bytes, type), pdv: (...args) => this.onPdv(...args) }, RECEIVE_MAX_PDU);
    // Small replies must not wait for Nagle: a modality sends the next instance only after ours.
    peer.setNoDelay(true);
    peer.on('data', (chunk: Buffer) => {
      if (this.closed) return;
      try {
        this.reader.push(chunk);
      } catch (e) {
        this.protocolError(e as Error);
      }
    });
    this.on('networkError', (e: Error) => {
      if (!this.closed) this.ctx.log.warn({ err: e, callingAe: this.sender?.aeTitle }, 'dicom connection error');
      peer.destroy();
    });
    peer.once('close', () => {
      this.closed = true;
      this.dropTransfer();
    });
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const entry = work.catch((e) => this.ctx.log.error({ err: e }, 'dicom listener task failed'));
    this.ctx.inflight.add(entry);
    void entry.finally(() => this.ctx.inflight.delete(entry));
    return work;
  }

  /** Ends the connection (listener closing). */
  shutdown(): void {
    this.peer.destroy();
  }

  /** An unfinished C-STORE (the peer aborted or went away) leaves nothing behind. */
  private dropTransfer(): void {
    const receiving = this.receiving;
    this.receiving = undefined;
    if (receiving instanceof IncomingStore) void this.track(receiving.arrival.discard());
  }

  /** A peer that breaks the protocol is aborted (PS3.8 9.3.8) and disconnected. */
  private protocolError(e: Error): void {
    if (this.closed) return;
    this.ctx.log.warn({ err: e, callingAe: this.sender?.aeTitle }, 'dicom protocol error: association aborted');
    this.closed = true;
    this.dropTransfer();
    this.peer.end(encodeAbort(AbortSource.ServiceProvider, e instanceof ProtocolError ? AbortReason.InvalidPduParameter : AbortReason.NotSpecified));
    setTimeout(() => this.peer.destroy(), 1000).unref();
  }

  /** Runs `step` after the steps before it (a failed step is logged and does not hold up the next). */
  private inTurn(step: () => void | Promise<void>): void {
    this.ordered = this.ordered.then(step).catch((e) => this.ctx.log.error({ err: e, callingAe: this.sender?.aeTitle }, 'dicom listener step failed'));
  }

  /** Hands bytes to dcmjs-dimse after whatever is still being answered. */
  private toDimse(bytes: Buffer): void {
    this.inTurn(() => {
      if (!this.closed) this.dimseSocket.emit('data', bytes);
    });
  }

  private onPdu(bytes: Buffer, type: number): void {
    if (type === PDU.abort) {
      // At once, not behind pending replies: the peer has given up.
      this.dropTransfer();
      this.dimseSocket.emit('data', bytes);
      return;
    }
    if (this.receiving || this.commandBytes) throw new ProtocolError(`PDU type ${type} inside a DIMSE message`);
    this.toDimse(bytes);
  }

  private onPdv(contextId: number, command: boolean, last: boolean, bytes: Buffer, end: boolean): void {
    if (!this.accepted) throw new ProtocolError('P-DATA-TF before the association was accepted');
    if (command) {
      if (this.receiving) throw new ProtocolError('a command before the previous dataset ended');
      this.commandBytes += bytes.length;
      if (this.commandBytes > MAX_COMMAND) throw new ProtocolError('command set too long');
      this.commandParts.push(bytes);
      if (end && last) {
        const raw = Buffer.concat(this.commandParts, this.commandBytes);
        this.commandParts = [];
        this.commandBytes = 0;
        this.onCommand(contextId, raw);
      }
      return;
    }
    const receiving = this.receiving;
    if (!receiving) throw new ProtocolError('a dataset without its command');
    if (receiving.contextId !== contextId) throw new ProtocolError('a dataset on another presentation context than its command');
    if (receiving instanceof IncomingStore) {
      if (!receiving.arrival.write(bytes)) this.holdWhileDiskBehind(receiving.arrival);
      if (end && last) {
        this.receiving = undefined;
        this.finishStore(receiving);
      }
      return;
    }
    receiving.parts.push(bytes);
    receiving.bytes += bytes.length;
    if (receiving.bytes > RECEIVE_MAX_PDU * 16) throw new ProtocolError('dataset too long for this service');
    if (end) {
      this.toDimse(encodePData(contextId, false, last, Buffer.concat(receiving.parts, receiving.bytes)));
      receiving.parts = [];
      receiving.bytes = 0;
      if (last) this.receiving = undefined;
    }
  }

  private onCommand(contextId: number, raw: Buffer): void {
    const command = parseCommand(raw);
    if (command.commandField !== COMMAND.cStoreRq) {
      // Verification and worklist queries: dcmjs-dimse answers them.
      this.toDimse(encodePData(contextId, true, true, raw));
      if (command.hasDataset) this.receiving = { contextId, parts: [], bytes: 0 };
      return;
    }
    const context = this.acceptedContext(contextId);
    if (!context) throw new ProtocolError(`C-STORE on presentation context ${contextId}, which was not accepted`);
    if (!command.hasDataset) {
      this.reply(contextId, Promise.resolve(storeResponse(command, STATUS.cannotUnderstand, 'no data set')));
      return;
    }
    const prefix = part10Prefix(command.affectedSopClassUid, command.affectedSopInstanceUid, context.getAcceptedTransferSyntaxUid()!);
    this.receiving = new IncomingStore(command, contextId, this.ctx.app.archive.receive(this.sender!.hospitalId, prefix));
  }

  private acceptedContext(contextId: number): PresentationContext | undefined {
    try {
      const context = this.accepted!.getPresentationContext(contextId);
      return context.getResult() === PresentationContextResult.Accept ? context : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stops reading the socket until the disk has caught up. */
  private holdWhileDiskBehind(arrival: Arrival): void {
    if (this.peer.isPaused()) return;
    this.peer.pause();
    void arrival.drain().then(() => {
      if (!this.peer.destroyed) this.peer.resume();
    });
  }

  /** Sends a C-STORE-RSP once it is known, in turn. */
  private reply(contextId: number, response: Promise<Buffer>): void {
    this.inTurn(async () => {
      const command = await response;
      if (!this.closed) this.peer.write(encodePData(contextId, true, true, command));
    });
  }

  private finishStore(store: IncomingStore): void {
    this.reply(store.contextId, this.track(this.store(store)));
  }

  private async store(incoming: IncomingStore): Promise<Buffer> {
    const { command } = incoming;
    const sender = this.sender!;
    const affected = command.affectedSopInstanceUid;
    try {
      await incoming.arrival.store({ hospitalId: sender.hospitalId, deviceId: sender.deviceId, sender: sender.aeTitle, expectSopInstanceUid: affected });
      return storeResponse(command, STATUS.success);
    } catch (e) {
      // The arrival has dropped its file whatever happened.
      if (e instanceof SopInstanceMismatchError) return storeResponse(command, STATUS.instanceMismatch, e.message);
      if (e instanceof InstanceRefusedError) {
        this.ctx.log.warn({ callingAe: sender.aeTitle, sopInstanceUid: affected, reason: e.message }, 'dicom store refused');
        return storeResponse(command, e.reason === 'otherPatient' ? STATUS.otherPatient : STATUS.duplicateDifferent, e.message);
      }
      if (e instanceof InvalidDicomError) {
        this.ctx.log.warn({ callingAe: sender.aeTitle, sopInstanceUid: affected, reason: e.message }, 'dicom store refused');
        return storeResponse(command, STATUS.cannotUnderstand, e.message);
      }
      this.ctx.log.error({ err: e, callingAe: sender.aeTitle, sopInstanceUid: affected }, 'dicom store failed');
      return storeResponse(command, STATUS.outOfResources);
    }
  }

  override associationRequested(association: Association): void {
    void this.track(this.admit(association));
  }

  private async admit(association: Association): Promise<void> {
    const callingAe = association.getCallingAeTitle().trim();
    const calledAe = association.getCalledAeTitle().trim();
    const address = normalizeAddress(this.peer.remoteAddress);
    const { db } = this.ctx.app;
    let device: { id: number; hospital_id: number; ip: string | null } | undefined;
    let reason: RefusalReason | undefined;
    try {
      // Per association, not cached: a device added in /deviceList can send at once.
      device = (await db.query<{ id: number; hospital_id: number; ip: string | null }>('SELECT id, hospital_id, ip FROM device WHERE ae_title = $1', [callingAe])).rows[0];
    } catch (e) {
      this.ctx.log.error({ err: e, callingAe }, 'dicom association: device lookup failed');
      reason = 'lookupFailed';
    }
    if (!reason) {
      if (calledAe !== this.ctx.aeTitle) reason = 'calledAeNotRecognized';
      else if (!device) reason = 'callingAeNotRecognized';
      else if (device.ip?.trim() && !sameHost(device.ip, address)) reason = 'addressMismatch';
    }
    try {
      // Logged before the answer, so whoever reads the log after the peer's failure finds it.
      await db.query(
        `INSERT INTO dicom_association_log (calling_ae, called_ae, peer_address, accepted, reason, device_id, hospital_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [callingAe, calledAe, address || null, !reason, reason ?? null, device?.id ?? null, device?.hospital_id ?? null],
      );
    } catch (e) {
      this.ctx.log.error({ err: e, callingAe }, 'dicom association log failed');
    }
    if (this.closed) return;
    if (reason) {
      this.ctx.log.warn({ callingAe, calledAe, address, reason }, 'dicom association refused');
      if (reason === 'lookupFailed') this.sendAssociationReject(RejectResult.Transient, RejectSource.ServiceProviderPresentation, RejectReason.TemporaryCongestion);
      else {
        const why = reason === 'calledAeNotRecognized' ? RejectReason.CalledAeNotRecognized : RejectReason.CallingAeNotRecognized;
        this.sendAssociationReject(RejectResult.Permanent, RejectSource.ServiceUser, why);
      }
      this.peer.end();
      return;
    }
    this.sender = { deviceId: device!.id, hospitalId: device!.hospital_id, aeTitle: callingAe };
    const accepted = negotiate(association);
    this.ctx.log.debug({ callingAe, address, accepted }, 'dicom association accepted');
    // The accept announces what this side receives (dcmjs-dimse would announce the
    // smaller of both sides' limits); what it sends keeps to the peer's limit.
    const peerMaxPdu = association.getMaxPduLength();
    association.setMaxPduLength(RECEIVE_MAX_PDU);
    this.sendAssociationAccept();
    association.setMaxPduLength(peerMaxPdu);
    this.accepted = association;
  }

  override associationReleaseRequested(): void {
    this.sendAssociationReleaseResponse();
  }

  override abort(): void {
    // The peer gave up; the socket closes next and an unfinished transfer is dropped then.
  }

  override cCancelRequest(): void {
    // Worklist answers are sent whole as soon as they are found; nothing to cancel.
  }

  override cEchoRequest(request: requests.CEchoRequest, callback: (response: responses.CEchoResponse) => void): void {
    const response = CEchoResponse.fromRequest(request);
    response.setStatus(STATUS.success);
    callback(response);
  }

  override cFindRequest(request: requests.CFindRequest, callback: (responses: responses.CFindResponse[]) => void): void {
    void this.track(this.find(request).then((answer) => !this.closed && callback(answer)));
  }

  private async find(request: requests.CFindRequest): Promise<responses.CFindResponse[]> {
    const query = request.getDataset();
    const respond = (status: number, dataset?: Record<string, unknown>, comment?: string) => {
      const response = CFindResponse.fromRequest(request);
      response.setAffectedSopClassUid(MODALITY_WORKLIST_FIND);
      response.setStatus(status);
      if (dataset) response.setDataset(new Dataset(dataset, query?.getTransferSyntaxUid()));
      if (comment) response.setErrorComment(comment.slice(0, 64));
      return response;
    };
    if (request.getAffectedSopClassUid() !== MODALITY_WORKLIST_FIND) return [respond(STATUS.sopClassNotSupported)];
    try {
      const matches = await findWorklist(this.ctx.app.db, this.sender!.hospitalId, query?.getElements() ?? {});
      return [...matches.map((m) => respond(STATUS.pending, m)), respond(STATUS.success)];
    } catch (e) {
      if (e instanceof WorklistQueryError) return [respond(STATUS.cannotUnderstand, undefined, e.message)];
      this.ctx.log.error({ err: e, callingAe: this.sender?.aeTitle }, 'dicom worklist query failed');
      return [respond(STATUS.outOfResources)];
    }
  }

  override cStoreRequest(request: requests.CStoreRequest, callback: (response: responses.CStoreResponse) => void): void {
    // Never reached: C-STORE requests are taken before dcmjs-dimse sees them.
    const response = CStoreResponse.fromRequest(request);
    response.setStatus(STATUS.outOfResources);
    callback(response);
  }
}

/** Starts listening; resolves once the port is bound. */
export async function startDicomListener(app: FastifyInstance, opts: DicomListenerOptions): Promise<DicomListener> {
  // dcmjs-dimse logs every PDU at trace level by default; its errors reach us as events.
  dimseLog.setLevel('silent');
  Implementation.setImplementationClassUid(IMPLEMENTATION_CLASS_UID);
  Implementation.setImplementationVersion(IMPLEMENTATION_VERSION);
  Implementation.setMaxPduLength(RECEIVE_MAX_PDU);
  const ctx: ListenerContext = { app, aeTitle: opts.aeTitle.trim(), log: app.log.child({ service: 'dicom' }), inflight: new Set() };
  const connections = new Set<Connection>();
  let closing = false;
  const server = net.createServer((socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    const connection = new Connection(socket, ctx);
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (e) => ctx.log.error({ err: e }, 'dicom listener error'));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async close() {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Replies to what is under way still go out; then the connections are dropped (an
      // unfinished transfer was never acknowledged, so the sender will send it again).
      await Promise.allSettled([...ctx.inflight]);
      for (const connection of connections) connection.shutdown();
      await Promise.allSettled([...ctx.inflight]);
      await stopped;
    },
  };
}
