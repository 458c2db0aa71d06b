/**
 * The upper-layer protocol (PS3.8) as far as the listener's own receive path needs it:
 * an incremental reader that cuts the socket's bytes into PDUs and P-DATA-TF's
 * presentation data values without copying them, and the DIMSE command sets (PS3.7,
 * implicit VR little endian) a C-STORE is announced and answered with.
 *
 * Why not dcmjs-dimse here: its reader concatenates every socket chunk onto the PDU
 * received so far, parses each PDU through SmartBuffer copies and encodes every reply
 * through dcmjs; on a CT series that was a third of the listener's time. It still does
 * association negotiation, C-ECHO and C-FIND, from PDUs this reader hands it whole.
 */

export const PDU = {
  associateRq: 0x01,
  associateAc: 0x02,
  associateRj: 0x03,
  pData: 0x04,
  releaseRq: 0x05,
  releaseRp: 0x06,
  abort: 0x07,
} as const;

/** PDV message control header bits (PS3.8 E.2). */
const PDV_COMMAND = 0x01;
const PDV_LAST = 0x02;

/** Command Field values (PS3.7 E.1) the listener tells apart itself and the requests it sends. */
export const COMMAND = {
  cStoreRq: 0x0001,
  cStoreRsp: 0x8001,
  cGetRq: 0x0010,
  cGetRsp: 0x8010,
  cMoveRq: 0x0021,
  cMoveRsp: 0x8021,
  nEventReportRq: 0x0100,
  nEventReportRsp: 0x8100,
} as const;
/** Command Data Set Type: no data set follows. */
const NO_DATASET = 0x0101;

export class ProtocolError extends Error {}

/** What the reader hands on, in arrival order. */
export interface PduHandler {
  /** A whole PDU other than P-DATA-TF (header included), for dcmjs-dimse. */
  pdu(bytes: Buffer, type: number): void;
  /**
   * Part of one presentation data value: `bytes` is a view into the socket's chunk.
   * `end` is set on a value's last part (several parts when the value spans chunks).
   */
  pdv(contextId: number, command: boolean, last: boolean, bytes: Buffer, end: boolean): void;
}

/**
 * Cuts a byte stream into PDUs. P-DATA-TF values are passed on as they arrive (a
 * 500 MB multi-frame never sits in memory); other PDUs are gathered whole, up to
 * `maxPdu` (an association request with many contexts is a few KB). A PDU longer than
 * announced to the peer, or a malformed one, is a ProtocolError: the caller aborts.
 */
export class PduReader {
  private header: Buffer = Buffer.alloc(0);
  private type = 0;
  /** Bytes of the current PDU still to come. */
  private remaining = 0;
  /** Non-P-DATA PDU being gathered. */
  private gathered: Buffer[] = [];
  /** Within P-DATA-TF: the item header being read (6 bytes), then the value's bytes still to come. */
  private itemHeader: Buffer = Buffer.alloc(0);
  private valueLeft = 0;
  private contextId = 0;
  private control = 0;

  constructor(
    private readonly handler: PduHandler,
    private readonly maxPdu: number,
  ) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining === 0) {
        // A PDU header: type, reserved, 32-bit length.
        ({ header: this.header, at } = fill(this.header, 6, chunk, at));
        if (this.header.length < 6) return;
        this.type = this.header[0];
        this.remaining = this.header.readUInt32BE(2);
        if (this.type < PDU.associateRq || this.type > PDU.abort) throw new ProtocolError(`unknown PDU type ${this.type}`);
        if (this.type === PDU.pData) {
          if (this.remaining > this.maxPdu + 6) throw new ProtocolError(`P-DATA-TF of ${this.remaining} bytes exceeds the negotiated ${this.maxPdu}`);
          if (this.remaining === 0) throw new ProtocolError('empty P-DATA-TF');
          this.itemHeader = Buffer.alloc(0);
          this.valueLeft = 0;
        } else {
          if (this.remaining > this.maxPdu) throw new ProtocolError(`PDU type ${this.type} of ${this.remaining} bytes`);
          this.gathered = [this.header];
          if (this.remaining === 0) this.endPdu();
        }
        this.header = Buffer.alloc(0);
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - at);
      if (this.type === PDU.pData) this.pData(chunk.subarray(at, at + take));
      else this.gathered.push(chunk.subarray(at, at + take));
      at += take;
      this.remaining -= take;
      if (this.remaining === 0) {
        if (this.type === PDU.pData) {
          if (this.valueLeft || this.itemHeader.length) throw new ProtocolError('P-DATA-TF ends inside a presentation data value');
        } else this.endPdu();
      }
    }
  }

  private endPdu(): void {
    const whole = Buffer.concat(this.gathered);
    this.gathered = [];
    this.handler.pdu(whole, this.type);
  }

  /** Bytes of the current P-DATA-TF's variable field: item headers and values. */
  private pData(bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length) {
      if (this.valueLeft === 0) {
        // An item header: 32-bit length, presentation context, message control header.
        ({ header: this.itemHeader, at } = fill(this.itemHeader, 6, bytes, at));
        if (this.itemHeader.length < 6) return;
        const itemLength = this.itemHeader.readUInt32BE(0);
        if (itemLength < 2 || itemLength - 2 > this.remaining - at) throw new ProtocolError(`presentation data value item of ${itemLength} bytes`);
        this.contextId = this.itemHeader[4];
        this.control = this.itemHeader[5];
        this.valueLeft = itemLength - 2;
        this.itemHeader = Buffer.alloc(0);
        // An empty value still says where a message ends.
        if (this.valueLeft === 0) this.emitValue(Buffer.alloc(0), true);
        continue;
      }
      const take = Math.min(this.valueLeft, bytes.length - at);
      this.valueLeft -= take;
      this.emitValue(bytes.subarray(at, at + take), this.valueLeft === 0);
      at += take;
    }
  }

  private emitValue(bytes: Buffer, end: boolean): void {
    this.handler.pdv(this.contextId, (this.control & PDV_COMMAND) !== 0, (this.control & PDV_LAST) !== 0, bytes, end);
  }
}

/** Adds bytes from `at` to a header read until it has `size` bytes (it may span chunks): the header so far, and where reading goes on. */
function fill(partial: Buffer, size: number, bytes: Buffer, at: number): { header: Buffer; at: number } {
  const part = bytes.subarray(at, at + size - partial.length);
  return { header: partial.length ? Buffer.concat([partial, part]) : part, at: at + part.length };
}

/** One P-DATA-TF holding one presentation data value: how values are handed to dcmjs-dimse and replies sent. */
export function encodePData(contextId: number, command: boolean, last: boolean, value: Buffer): Buffer {
  return Buffer.concat([pDataHeader(contextId, command, last, value.length), value]);
}

/** The 12 bytes before a P-DATA-TF's one value of `length` bytes (PDU header, PDV length, context, control). */
function pDataHeader(contextId: number, command: boolean, last: boolean, length: number): Buffer {
  const out = Buffer.allocUnsafe(12);
  out[0] = PDU.pData;
  out[1] = 0;
  out.writeUInt32BE(6 + length, 2);
  out.writeUInt32BE(2 + length, 6);
  out[10] = contextId;
  out[11] = (command ? PDV_COMMAND : 0) | (last ? PDV_LAST : 0);
  return out;
}

/** The command elements the listener reads (PS3.7 E.1-1). */
export interface Command {
  commandField: number;
  messageId: number;
  /** A response's Message ID Being Responded To and Status. */
  respondsTo?: number;
  status?: number;
  affectedSopClassUid: string;
  affectedSopInstanceUid: string;
  hasDataset: boolean;
}

const uid = (value: Buffer) => value.toString('latin1').replace(/[\0 ]+$/, '').trim();

/** Reads a command set (group 0000, always implicit VR little endian). */
export function parseCommand(bytes: Buffer): Command {
  const command: Command = { commandField: -1, messageId: -1, affectedSopClassUid: '', affectedSopInstanceUid: '', hasDataset: false };
  let dataSetType = NO_DATASET;
  let at = 0;
  while (at + 8 <= bytes.length) {
    const group = bytes.readUInt16LE(at);
    const element = bytes.readUInt16LE(at + 2);
    const length = bytes.readUInt32LE(at + 4);
    at += 8;
    if (group !== 0 || at + length > bytes.length) throw new ProtocolError('malformed command set');
    const value = bytes.subarray(at, at + length);
    at += length;
    if (element === 0x0002) command.affectedSopClassUid = uid(value);
    else if (element === 0x0100 && length === 2) command.commandField = value.readUInt16LE(0);
    else if (element === 0x0110 && length === 2) command.messageId = value.readUInt16LE(0);
    else if (element === 0x0120 && length === 2) command.respondsTo = value.readUInt16LE(0);
    else if (element === 0x0800 && length === 2) dataSetType = value.readUInt16LE(0);
    else if (element === 0x0900 && length === 2) command.status = value.readUInt16LE(0);
    else if (element === 0x1000) command.affectedSopInstanceUid = uid(value);
  }
  if (at !== bytes.length || command.commandField < 0) throw new ProtocolError('malformed command set');
  command.hasDataset = dataSetType !== NO_DATASET;
  return command;
}

function commandElement(element: number, value: Buffer): Buffer {
  const head = Buffer.allocUnsafe(8);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(element, 2);
  head.writeUInt32LE(value.length, 4);
  return Buffer.concat([head, value]);
}

/** A command element's value: a UID (padded with NUL), a US number, or a text (padded with a space). */
export type CommandValue = { uid: string } | { us: number } | { text: string };

function commandValue(value: CommandValue): Buffer {
  if ('us' in value) {
    const b = Buffer.allocUnsafe(2);
    b.writeUInt16LE(value.us, 0);
    return b;
  }
  const [text, pad] = 'uid' in value ? [value.uid, '\0'] : [value.text, ' '];
  return Buffer.from(text.length % 2 ? text + pad : text, 'latin1');
}

/** A command set (group 0000, implicit VR little endian) from its elements, in tag order, with its group length. */
export function commandSet(elements: Array<[element: number, value: CommandValue]>): Buffer {
  const body = Buffer.concat(elements.map(([element, value]) => commandElement(element, commandValue(value))));
  const groupLength = Buffer.allocUnsafe(4);
  groupLength.writeUInt32LE(body.length, 0);
  return Buffer.concat([commandElement(0x0000, groupLength), body]);
}

/** The C-STORE-RSP command set for a request (PS3.7 9.3.1.2), with an error comment when one is given. */
export function storeResponse(request: Command, status: number, errorComment?: string): Buffer {
  const elements: Array<[number, CommandValue]> = [
    [0x0002, { uid: request.affectedSopClassUid }],
    [0x0100, { us: COMMAND.cStoreRsp }],
    [0x0120, { us: request.messageId }],
    [0x0800, { us: NO_DATASET }],
    [0x0900, { us: status }],
  ];
  // Error Comment is LO: 64 characters at most, no backslash.
  if (errorComment) elements.push([0x0902, { text: errorComment.replace(/[\\\r\n]/g, ' ').slice(0, 64) }]);
  elements.push([0x1000, { uid: request.affectedSopInstanceUid }]);
  return commandSet(elements);
}

/** A-ABORT (PS3.8 9.3.8): source 2 is the service provider, reason 2 an unexpected PDU, 6 an invalid PDU parameter. */
export function encodeAbort(source: number, reason: number): Buffer {
  return Buffer.from([PDU.abort, 0, 0, 0, 0, 4, 0, 0, source, reason]);
}

/** A presentation context an association requester proposes (PS3.8 9.3.2.2), with SCP/SCU role selection when `scpRole` is set (PS3.7 D.3.3.4). */
export interface ProposedContext {
  id: number;
  abstractSyntax: string;
  transferSyntaxes: string[];
  /** Propose to act as the SCP of this SOP class too (an N-EVENT-REPORT sender, a C-GET's storage). */
  scpRole?: boolean;
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

function item(type: number, body: Buffer): Buffer {
  const head = Buffer.from([type, 0, 0, 0]);
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([head, body]);
}

const aeField = (title: string) => latin1(title.padEnd(16, ' ').slice(0, 16));

export const APPLICATION_CONTEXT = '1.2.840.10008.3.1.1.1';

/** A-ASSOCIATE-RQ (PS3.8 9.3.2) with the user information the requester announces. */
export function associateRequest(calling: string, called: string, contexts: ProposedContext[], maxPdu: number, implementationClassUid: string): Buffer {
  const fixed = Buffer.concat([Buffer.from([0, 1, 0, 0]), aeField(called), aeField(calling), Buffer.alloc(32)]);
  const maxLength = Buffer.alloc(4);
  maxLength.writeUInt32BE(maxPdu);
  const roles = contexts
    .filter((c) => c.scpRole)
    .map((c) => {
      const uid = latin1(c.abstractSyntax);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(uid.length);
      // SCU role kept (1), SCP role proposed (1).
      return item(0x54, Buffer.concat([length, uid, Buffer.from([1, 1])]));
    });
  const items = [
    item(0x10, latin1(APPLICATION_CONTEXT)),
    ...contexts.map((c) =>
      item(0x20, Buffer.concat([Buffer.from([c.id, 0, 0, 0]), item(0x30, latin1(c.abstractSyntax)), ...c.transferSyntaxes.map((ts) => item(0x40, latin1(ts)))])),
    ),
    item(0x50, Buffer.concat([item(0x51, maxLength), item(0x52, latin1(implementationClassUid)), ...roles])),
  ];
  const body = Buffer.concat([fixed, ...items]);
  const head = Buffer.from([PDU.associateRq, 0, 0, 0, 0, 0]);
  head.writeUInt32BE(body.length, 2);
  return Buffer.concat([head, body]);
}

/** What an A-ASSOCIATE-AC says: the accepted contexts (id → transfer syntax) and the acceptor's longest PDU (0: no limit). */
export interface AssociateAccept {
  accepted: Map<number, string>;
  maxPdu: number;
}

export function readAssociateAccept(pdu: Buffer): AssociateAccept {
  const accepted = new Map<number, string>();
  let maxPdu = 0;
  // Items follow the 6-byte PDU header and the 68-byte fixed fields.
  for (let at = 74; at + 4 <= pdu.length; ) {
    const type = pdu[at];
    const length = pdu.readUInt16BE(at + 2);
    const body = pdu.subarray(at + 4, at + 4 + length);
    if (type === 0x21 && body[2] === 0) {
      // Result 0 (acceptance) with its transfer syntax sub-item.
      const tsLength = body.readUInt16BE(6);
      accepted.set(body[0], body.toString('latin1', 8, 8 + tsLength).replace(/\0+$/, '').trim());
    } else if (type === 0x50) {
      for (let sub = 0; sub + 4 <= body.length; ) {
        const subLength = body.readUInt16BE(sub + 2);
        if (body[sub] === 0x51 && subLength === 4) maxPdu = body.readUInt32BE(sub + 4);
        sub += 4 + subLength;
      }
    }
    at += 4 + length;
  }
  return { accepted, maxPdu };
}

/** The value bytes one P-DATA-TF may carry for a peer accepting PDUs of `maxPdu` bytes (0: no limit, kept at 1 MB). */
export function pdvLimit(maxPdu: number): number {
  return (maxPdu > 0 ? Math.min(maxPdu, 1 << 20) : 1 << 20) - 6;
}

/**
 * A DIMSE message as P-DATA-TF PDUs for a peer whose PDUs hold `maxPdu` bytes: the
 * command, then the dataset's pieces (given in any sizes) cut to fit. Each PDU comes as
 * its header and its value, the value a view of the caller's bytes (no copy): written
 * corked, they leave in one writev.
 */
export function* messagePdus(contextId: number, command: Buffer, dataset: Iterable<Buffer> | undefined, maxPdu: number): Generator<Buffer> {
  const limit = pdvLimit(maxPdu);
  // A command set is a few hundred bytes: one value.
  yield pDataHeader(contextId, true, true, command.length);
  yield command;
  if (!dataset) return;
  let pending: Buffer | undefined;
  for (const piece of dataset) {
    for (let at = 0; at < piece.length; at += limit) {
      if (pending) yield* [pDataHeader(contextId, false, false, pending.length), pending];
      pending = piece.subarray(at, at + limit);
    }
  }
  pending ??= Buffer.alloc(0);
  yield pDataHeader(contextId, false, true, pending.length);
  yield pending;
}

/** The C-STORE-RQ command set (PS3.7 9.3.1.1), with the C-MOVE that caused it when there is one. */
export function storeRequest(messageId: number, sopClassUid: string, sopInstanceUid: string, move?: { aeTitle: string; messageId: number }): Buffer {
  const elements: Array<[number, CommandValue]> = [
    [0x0002, { uid: sopClassUid }],
    [0x0100, { us: COMMAND.cStoreRq }],
    [0x0110, { us: messageId }],
    [0x0700, { us: 0 }],
    [0x0800, { us: 0 }],
    [0x1000, { uid: sopInstanceUid }],
  ];
  if (move) elements.push([0x1030, { text: move.aeTitle }], [0x1031, { us: move.messageId }]);
  return commandSet(elements);
}

/**
 * A C-MOVE-RSP or C-GET-RSP command set with the sub-operation counts (PS3.7 9.3.4.2,
 * 9.3.3.2), no data set: what a retrieve sends after each sub-operation while pending.
 */
export function retrieveResponse(
  commandField: typeof COMMAND.cMoveRsp | typeof COMMAND.cGetRsp,
  sopClassUid: string,
  messageId: number,
  status: number,
  counts: { remaining: number; completed: number; failed: number; warning: number },
): Buffer {
  return commandSet([
    [0x0002, { uid: sopClassUid }],
    [0x0100, { us: commandField }],
    [0x0120, { us: messageId }],
    [0x0800, { us: NO_DATASET }],
    [0x0900, { us: status }],
    [0x1020, { us: counts.remaining }],
    [0x1021, { us: counts.completed }],
    [0x1022, { us: counts.failed }],
    [0x1023, { us: counts.warning }],
  ]);
}

/** The N-EVENT-REPORT-RQ command set (PS3.7 10.3.1.1). */
export function eventReportRequest(messageId: number, sopClassUid: string, sopInstanceUid: string, eventTypeId: number): Buffer {
  return commandSet([
    [0x0002, { uid: sopClassUid }],
    [0x0100, { us: COMMAND.nEventReportRq }],
    [0x0110, { us: messageId }],
    [0x0800, { us: 0 }],
    [0x1000, { uid: sopInstanceUid }],
    [0x1002, { us: eventTypeId }],
  ]);
}

/** Where a Part-10 file's dataset starts: after the preamble, "DICM" and the meta group (whose length is its first element). */
export function datasetOffset(file: Buffer): number {
  if (file.length < 144 || file.toString('latin1', 128, 132) !== 'DICM' || file.readUInt16LE(132) !== 2 || file.readUInt16LE(134) !== 0) {
    throw new ProtocolError('not a Part-10 file');
  }
  return 144 + file.readUInt32LE(140);
}
