/**
 * The DICOM network listener (DIMSE over TCP) for the devices registered in
 * /deviceList: C-ECHO, C-STORE into the archive, Modality Worklist C-FIND,
 * Query/Retrieve (C-FIND, C-MOVE, C-GET), MPPS (N-CREATE, N-SET) and storage
 * commitment (N-ACTION, N-EVENT-REPORT). The device a calling AE title belongs to
 * (looked up per association, so a new device works at once) decides the hospital of
 * what it stores, the worklist it sees and the archive it may query (its hospital and
 * those it serves); every association attempt is logged in dicom_association_log.
 *
 * dcmjs-dimse runs the association (negotiation, release, abort) and parses the
 * requests other than C-STORE; the answers are the domain modules' (worklist.ts,
 * query.ts, retrieve.ts, mpps.ts, commitment.ts). Requests this side sends (a C-GET's
 * C-STOREs, a commitment report) go out through pdu.ts, their responses taken here.
 * C-STORE has a receive path of its own (pdu.ts): the socket's bytes are cut into PDUs
 * here, the values of a C-STORE's dataset go straight to a temp file behind its
 * Part-10 meta header (no copy, no reassembly of the instance in memory), the rest is
 * handed to dcmjs-dimse as whole PDUs through a stand-in socket. The archive indexes
 * the file before Success is sent: an acknowledged instance survives a crash. Touches
 * the archive, the device, worklist, mpps and association log tables (and, through
 * mpps.ts, the exam and its log), and nothing else.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { constants, Dataset, Implementation, log as dimseLog, responses, Scp, type association, type requests } from 'dcmjs-dimse';
import { InstanceRefusedError, InvalidDicomError, SopInstanceMismatchError, type Arrival } from '../pacs/archive';
import { IMPLEMENTATION_CLASS_UID, IMPLEMENTATION_VERSION, part10Prefix } from '../pacs/dicomFile';
import { commitmentRequest, CommitmentRequestError, commitmentResult } from './commitment';
import { createMpps, MppsError, newMppsUid, N_STATUS, setMpps } from './mpps';
import { EXPLICIT_VR_LE, IMPLICIT_VR_LE, MODALITY_WORKLIST_FIND, MPPS, negotiate, STORAGE_COMMITMENT, STORAGE_COMMITMENT_INSTANCE, STORAGE_SOP_CLASSES } from './negotiation';
import { COMMAND, encodeAbort, encodePData, eventReportRequest, parseCommand, PDU, PduReader, ProtocolError, retrieveResponse, storeResponse, type Command } from './pdu';
import { findArchive, QUERY_RETRIEVE, retrieveInstances } from './query';
import { proposedContexts, sendInstances, type RetrieveCounts } from './retrieve';
import { AssociationError, OutboundAssociation, PendingRequests, sendRequest, type AcceptedContext, type StoreTarget } from './scu';
import { encodeInCharset, findWorklist, WorklistQueryError } from './worklist';

type Association = association.Association;
type PresentationContext = association.PresentationContext;
const { CEchoResponse, CFindResponse, CGetResponse, CMoveResponse, CStoreResponse, NActionResponse, NCreateResponse, NSetResponse } = responses;
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
  /** C-FIND/C-MOVE/C-GET: the identifier does not match the SOP class (PS3.4 C.4.1.1.4). */
  identifierMismatch: 0xa900,
  /** C-MOVE: the move destination is not a known AE (PS3.4 C.4.2.1.5). */
  moveDestinationUnknown: 0xa801,
  /** C-MOVE/C-GET: unable to perform the sub-operations. */
  subOperationsRefused: 0xa702,
  /** C-MOVE/C-GET: sub-operations complete, one or more failures or warnings. */
  subOperationsWarning: 0xb000,
  cancel: 0xfe00,
  /** Duplicate SOP Instance (PS3.7 C): the UID is stored with other content. */
  duplicateDifferent: 0x0111,
  /** C-STORE "Data Set does not match SOP Class" (0xA900): its Study Instance UID is stored for another patient. */
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
  /** The hospitals whose archive the device may query and retrieve: its own and those it serves. */
  hospitalIds: number[];
  /** The character set its worklist answers are written in (null: UTF-8). */
  charset: string | null;
}

/** Query/Retrieve SOP classes by service. */
const QR_FIND = new Set<string>([QUERY_RETRIEVE.patientRootFind, QUERY_RETRIEVE.studyRootFind]);
const QR_MOVE = new Set<string>([QUERY_RETRIEVE.patientRootMove, QUERY_RETRIEVE.studyRootMove]);
const QR_GET = new Set<string>([QUERY_RETRIEVE.patientRootGet, QUERY_RETRIEVE.studyRootGet]);

type RetrieveResponse = responses.CMoveResponse | responses.CGetResponse;

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
  /** A response's dataset to one of our own requests: read and dropped. */
  drop?: boolean;
}

interface DeviceRow {
  id: number;
  hospital_id: number;
  ip: string | null;
  served_hospital_ids: number[] | null;
  default_charset: string | null;
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
  /** Requests this side sent on the association (a C-GET's C-STOREs, a commitment report). */
  private readonly pending = new PendingRequests();
  /** Message IDs of retrieves the requester has cancelled (C-CANCEL). */
  private readonly cancelled = new Set<number>();
  /** The presentation context each retrieve (C-MOVE, C-GET) came on, by Message ID: its pending responses go out there. */
  private readonly retrieveContexts = new Map<number, { contextId: number; sopClassUid: string }>();
  /** The requester asked to release: nothing more is sent on this association. */
  private releasing = false;

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
      this.pending.endAll();
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
    if (receiving.drop) {
      if (end && last) this.receiving = undefined;
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
    // A response to a request of ours (commands with the response bit set).
    if (command.commandField & 0x8000 && this.pending.answer(command)) {
      if (command.hasDataset) this.receiving = { contextId, parts: [], bytes: 0, drop: true };
      return;
    }
    if (command.commandField !== COMMAND.cStoreRq) {
      if (command.commandField === COMMAND.cMoveRq || command.commandField === COMMAND.cGetRq) this.retrieveContexts.set(command.messageId, { contextId, sopClassUid: command.affectedSopClassUid });
      // Verification, queries, the start and the final answer of a retrieve: dcmjs-dimse answers them.
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
    let device: DeviceRow | undefined;
    let reason: RefusalReason | undefined;
    try {
      // Per association, not cached: a device added in /deviceList can send at once.
      device = (await db.query<DeviceRow>('SELECT id, hospital_id, ip, served_hospital_ids, default_charset FROM device WHERE ae_title = $1', [callingAe])).rows[0];
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
    this.sender = {
      deviceId: device!.id,
      hospitalId: device!.hospital_id,
      aeTitle: callingAe,
      hospitalIds: [device!.hospital_id, ...(device!.served_hospital_ids ?? [])],
      charset: device!.default_charset?.trim() || null,
    };
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
    this.releasing = true;
    this.sendAssociationReleaseResponse();
  }

  override abort(): void {
    // The peer gave up; the socket closes next and an unfinished transfer is dropped then.
  }

  override cCancelRequest(request: requests.CCancelRequest): void {
    // Worklist and query answers are sent whole as soon as they are found; a retrieve stops.
    this.cancelled.add(request.getMessageIdBeingRespondedTo());
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
    const sopClass = request.getAffectedSopClassUid();
    const sender = this.sender!;
    const respond = (status: number, dataset?: Record<string, unknown>, comment?: string) => {
      const response = CFindResponse.fromRequest(request);
      response.setAffectedSopClassUid(sopClass);
      response.setStatus(status);
      if (dataset) response.setDataset(this.answerDataset(dataset, query?.getTransferSyntaxUid(), sopClass === MODALITY_WORKLIST_FIND ? sender.charset : null));
      if (comment) response.setErrorComment(comment.slice(0, 64));
      return response;
    };
    const elements = query?.getElements() ?? {};
    try {
      let matches: Record<string, unknown>[];
      if (sopClass === MODALITY_WORKLIST_FIND) matches = await findWorklist(this.ctx.app.db, sender.hospitalId, elements, sender.aeTitle);
      else if (QR_FIND.has(sopClass)) matches = await findArchive(this.ctx.app.db, sender.hospitalIds, sopClass, elements, this.ctx.aeTitle);
      else return [respond(STATUS.sopClassNotSupported)];
      return [...matches.map((m) => respond(STATUS.pending, m)), respond(STATUS.success)];
    } catch (e) {
      if (e instanceof WorklistQueryError) return [respond(STATUS.cannotUnderstand, undefined, e.message)];
      this.ctx.log.error({ err: e, callingAe: sender.aeTitle }, 'dicom query failed');
      return [respond(STATUS.outOfResources)];
    }
  }

  /** An answer's dataset, its text in the device's character set when it has one other than UTF-8. */
  private answerDataset(elements: Record<string, unknown>, transferSyntaxUid: string | undefined, charset: string | null): Dataset {
    const dataset = new Dataset(elements, transferSyntaxUid);
    const encoded = charset ? encodeInCharset(elements, transferSyntaxUid ?? '1.2.840.10008.1.2', charset) : undefined;
    // dcmjs writes text as UTF-8 only: the dataset goes out as encoded here instead.
    if (encoded) dataset.getDenaturalizedDataset = () => encoded;
    return dataset;
  }

  override cMoveRequest(request: requests.CMoveRequest, callback: (responses: responses.CMoveResponse[]) => void): void {
    const destination = String(request.getCommandDataset().getElement('MoveDestination') ?? '').trim();
    void this.track(this.retrieve(request, () => CMoveResponse.fromRequest(request), callback, destination));
  }

  override cGetRequest(request: requests.CGetRequest, callback: (responses: responses.CGetResponse[]) => void): void {
    void this.track(this.retrieve(request, () => CGetResponse.fromRequest(request), callback));
  }

  /**
   * C-MOVE (to `destination`, a device the caller's hospitals hold) or C-GET (on this
   * association): the instances the identifier names, sent one by one, a pending
   * response with the counts after each, then the final one.
   */
  private async retrieve<R extends RetrieveResponse>(
    request: requests.CMoveRequest | requests.CGetRequest,
    make: () => R,
    send: (responses: R[]) => void,
    destination?: string,
  ): Promise<void> {
    const sender = this.sender!;
    const sopClass = request.getAffectedSopClassUid();
    const respond = (status: number, counts?: RetrieveCounts, comment?: string) => {
      if (this.closed) return;
      const response = make();
      response.setAffectedSopClassUid(sopClass);
      response.setStatus(status);
      if (counts) {
        response.setRemaining(counts.remaining);
        response.setCompleted(counts.completed);
        response.setFailures(counts.failed);
        response.setWarnings(counts.warning);
        if (counts.failedUids.length) {
          response.setDataset(new Dataset({ FailedSOPInstanceUIDList: counts.failedUids.join('\\') }, request.getDataset()?.getTransferSyntaxUid()));
        }
      }
      if (comment) response.setErrorComment(comment.replace(/[\\\r\n]/g, ' ').slice(0, 64));
      send([response]);
    };
    const messageId = request.getMessageId();
    // Set by onCommand, which every retrieve passes through.
    const on = this.retrieveContexts.get(messageId);
    this.retrieveContexts.delete(messageId);
    const move = destination !== undefined;
    /**
     * The pending response after each sub-operation, written here beside dcmjs-dimse's one
     * final answer (a command set of a few dozen bytes): through dcmjs-dimse it cost about
     * a millisecond of CPU a time, a third of what a C-MOVE of a CT slice takes.
     */
    const progress = (counts: RetrieveCounts) => {
      if (counts.remaining <= 0 || this.closed || !on) return;
      this.peer.write(encodePData(on.contextId, true, true, retrieveResponse(move ? COMMAND.cMoveRsp : COMMAND.cGetRsp, on.sopClassUid, messageId, STATUS.pending, counts)));
    };
    if (!(move ? QR_MOVE : QR_GET).has(sopClass)) return respond(STATUS.sopClassNotSupported);
    let target: StoreTarget;
    let instances: Awaited<ReturnType<typeof retrieveInstances>> = [];
    let outbound: OutboundAssociation | undefined;
    try {
      instances = await retrieveInstances(this.ctx.app.db, sender.hospitalIds, sopClass, request.getDataset()?.getElements() ?? {});
      if (move) {
        const found = await this.moveDestination(destination);
        if (!found) return respond(STATUS.moveDestinationUnknown, undefined, `move destination ${destination} unknown`);
        if (!instances.length) return respond(STATUS.success, { remaining: 0, completed: 0, failed: 0, warning: 0, failedUids: [] });
        outbound = await OutboundAssociation.open({ ...found, callingAe: this.ctx.aeTitle, calledAe: destination, contexts: proposedContexts(instances) });
        target = outbound;
      } else target = this.sameAssociation();
    } catch (e) {
      if (e instanceof WorklistQueryError) return respond(STATUS.identifierMismatch, undefined, e.message);
      if (e instanceof AssociationError) {
        this.ctx.log.warn({ callingAe: sender.aeTitle, destination, reason: e.message }, 'dicom move: destination unreachable');
        const none = { remaining: 0, completed: 0, failed: instances.length, warning: 0, failedUids: [] };
        return respond(STATUS.subOperationsRefused, none, e.message);
      }
      this.ctx.log.error({ err: e, callingAe: sender.aeTitle }, 'dicom retrieve failed');
      return respond(STATUS.outOfResources);
    }
    try {
      const counts = await sendInstances(instances, target, {
        storage: this.ctx.app.storage,
        log: this.ctx.log,
        moveOriginator: move ? { aeTitle: sender.aeTitle, messageId } : undefined,
        progress,
        cancelled: () => this.closed || this.cancelled.has(messageId),
      });
      if (this.cancelled.delete(messageId)) respond(STATUS.cancel, counts);
      else respond(counts.failed || counts.warning ? STATUS.subOperationsWarning : STATUS.success, counts);
    } finally {
      await outbound?.release().catch(() => outbound?.abort());
    }
  }

  /** A C-MOVE destination: a device of the hospitals the caller may see, with an address. */
  private async moveDestination(aeTitle: string): Promise<{ host: string; port: number } | undefined> {
    const { rows } = await this.ctx.app.db.query<{ ip: string | null; port: number | null }>(
      'SELECT ip, port FROM device WHERE ae_title = $1 AND hospital_id = ANY($2::int[])',
      [aeTitle, this.sender!.hospitalIds],
    );
    const device = rows[0];
    return device?.ip && device.port ? { host: device.ip.trim(), port: device.port } : undefined;
  }

  /** A C-GET's target: the storage contexts the requester proposed (with the SCP role for us to send on), on this association. */
  private sameAssociation(): StoreTarget {
    const contexts: AcceptedContext[] = [];
    for (const { id } of this.accepted!.getPresentationContexts()) {
      const context = this.acceptedContext(id);
      const abstractSyntax = context?.getAbstractSyntaxUid().trim();
      // Only classes the requester proposed to receive (SCP role selected, PS3.4 C.4.3.1.2).
      if (context && abstractSyntax && STORAGE_SOP_CLASSES[abstractSyntax] && context.getProviderRole()) {
        contexts.push({ id, abstractSyntax, transferSyntax: context.getAcceptedTransferSyntaxUid()!.trim() });
      }
    }
    return { contexts, request: (contextId, command, dataset) => this.request(contextId, command, dataset) };
  }

  /** Sends a request of ours on this association; its response, or undefined when the association ends first. */
  private async request(contextId: number, command: (messageId: number) => Buffer, dataset?: Iterable<Buffer>): Promise<Command | undefined> {
    return this.closed ? undefined : sendRequest(this.pending, this.peer, this.accepted!.getMaxPduLength(), contextId, command, dataset);
  }

  override nCreateRequest(request: requests.NCreateRequest, callback: (response: responses.NCreateResponse) => void): void {
    const response = NCreateResponse.fromRequest(request);
    // The modality may leave the step's UID to the SCP (PS3.4 F.7.2.1.1).
    const uid = request.getAffectedSopInstanceUid()?.trim() || newMppsUid();
    response.setAffectedSopInstanceUid(uid);
    void this.track(this.performedStep(request, response, () => createMpps(this.ctx.app.db, this.sender!, uid, request.getDataset()?.getElements() ?? {})).then(() => !this.closed && callback(response)));
  }

  override nSetRequest(request: requests.NSetRequest, callback: (response: responses.NSetResponse) => void): void {
    const response = NSetResponse.fromRequest(request);
    const uid = request.getRequestedSopInstanceUid()?.trim() ?? '';
    response.setAffectedSopInstanceUid(uid);
    void this.track(this.performedStep(request, response, () => setMpps(this.ctx.app.db, this.sender!, uid, request.getDataset()?.getElements() ?? {})).then(() => !this.closed && callback(response)));
  }

  /** Runs an MPPS N-CREATE or N-SET and sets the response's status from its outcome. */
  private async performedStep(request: requests.NCreateRequest | requests.NSetRequest, response: responses.NCreateResponse | responses.NSetResponse, run: () => Promise<{ examId: number | null }>): Promise<void> {
    const sender = this.sender!;
    response.setAffectedSopClassUid(MPPS);
    if (request.getAffectedSopClassUid()?.trim() !== MPPS && request.getRequestedSopClassUid?.()?.trim() !== MPPS) {
      response.setStatus(STATUS.sopClassNotSupported);
      return;
    }
    try {
      const { examId } = await run();
      response.setStatus(STATUS.success);
      if (!examId) this.ctx.log.warn({ callingAe: sender.aeTitle, mpps: response.getAffectedSopInstanceUid() }, 'dicom mpps: no single exam agrees with the scheduled step');
    } catch (e) {
      if (e instanceof MppsError) {
        response.setStatus(e.status);
        response.setErrorComment(e.message.slice(0, 64));
        return;
      }
      this.ctx.log.error({ err: e, callingAe: sender.aeTitle }, 'dicom mpps failed');
      response.setStatus(N_STATUS.processingFailure);
    }
  }

  /**
   * Storage commitment (push model): the N-ACTION is answered at once, then the result
   * goes to the requester as an N-EVENT-REPORT on this association while it is open,
   * else on a new one to the device's registered address.
   */
  override nActionRequest(request: requests.NActionRequest, callback: (response: responses.NActionResponse) => void): void {
    const response = NActionResponse.fromRequest(request);
    response.setAffectedSopClassUid(STORAGE_COMMITMENT);
    response.setAffectedSopInstanceUid(STORAGE_COMMITMENT_INSTANCE);
    response.setActionTypeId(request.getActionTypeId());
    if (request.getRequestedSopClassUid?.()?.trim() !== STORAGE_COMMITMENT || request.getActionTypeId() !== 1) {
      response.setStatus(STATUS.sopClassNotSupported);
      return callback(response);
    }
    let asked;
    try {
      asked = commitmentRequest(request.getDataset()?.getElements() ?? {});
    } catch (e) {
      if (!(e instanceof CommitmentRequestError)) throw e;
      response.setStatus(N_STATUS.missingAttribute);
      response.setErrorComment(e.message.slice(0, 64));
      return callback(response);
    }
    response.setStatus(STATUS.success);
    const transferSyntax = request.getDataset()?.getTransferSyntaxUid();
    // The result is read before the answer, so the report can follow it on this association at once.
    void this.track(
      commitmentResult(this.ctx.app.db, this.sender!.hospitalId, asked).then(async (result) => {
        if (this.closed) return this.reportCommitment(result, transferSyntax);
        callback(response);
        const sent = await this.reportHere(result, transferSyntax);
        if (!sent) await this.reportCommitment(result, transferSyntax);
      }),
    );
  }

  /** The commitment report on this association; false when it could not be delivered here. */
  private async reportHere(result: { eventTypeId: number; dataset: Record<string, unknown> }, transferSyntax: string | undefined): Promise<boolean> {
    const context = [...this.accepted!.getPresentationContexts()].map(({ id }) => this.acceptedContext(id)).find((c) => c?.getAbstractSyntaxUid().trim() === STORAGE_COMMITMENT);
    if (!context || this.closed || this.releasing) return false;
    const dataset = new Dataset(result.dataset, context.getAcceptedTransferSyntaxUid() ?? transferSyntax).getDenaturalizedDataset();
    const response = await this.request(context.getPresentationContextId(), (id) => eventReportRequest(id, STORAGE_COMMITMENT, STORAGE_COMMITMENT_INSTANCE, result.eventTypeId), [dataset]).catch(() => undefined);
    return response?.status === STATUS.success;
  }

  /** The commitment report on a new association to the requesting device (PS3.4 J.3.3: the SCP proposes the SCP role). */
  private async reportCommitment(result: { eventTypeId: number; dataset: Record<string, unknown>; failed: number }, transferSyntax: string | undefined): Promise<void> {
    const sender = this.sender!;
    const { rows } = await this.ctx.app.db.query<{ ip: string | null; port: number | null }>('SELECT ip, port FROM device WHERE id = $1', [sender.deviceId]);
    const device = rows[0];
    if (!device?.ip || !device.port) {
      this.ctx.log.warn({ callingAe: sender.aeTitle }, 'dicom storage commitment: the device has no address to report to');
      return;
    }
    let association: OutboundAssociation | undefined;
    try {
      association = await OutboundAssociation.open({
        host: device.ip.trim(),
        port: device.port,
        callingAe: this.ctx.aeTitle,
        calledAe: sender.aeTitle,
        contexts: [{ id: 1, abstractSyntax: STORAGE_COMMITMENT, transferSyntaxes: [EXPLICIT_VR_LE, IMPLICIT_VR_LE], scpRole: true }],
      });
      const context = association.contexts[0];
      if (!context) throw new AssociationError('storage commitment not accepted by the device');
      const dataset = new Dataset(result.dataset, context.transferSyntax ?? transferSyntax).getDenaturalizedDataset();
      const response = await association.request(context.id, (id) => eventReportRequest(id, STORAGE_COMMITMENT, STORAGE_COMMITMENT_INSTANCE, result.eventTypeId), [dataset]);
      if (response?.status !== STATUS.success) throw new AssociationError(`event report answered ${response?.status ?? 'nothing'}`);
    } catch (e) {
      this.ctx.log.warn({ callingAe: sender.aeTitle, reason: (e as Error).message }, 'dicom storage commitment: report not delivered');
    } finally {
      await association?.release().catch(() => association?.abort());
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
