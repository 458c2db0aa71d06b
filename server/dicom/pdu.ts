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

/** Command Field values (PS3.7 E.1) the listener tells apart itself. */
export const COMMAND = { cStoreRq: 0x0001, cStoreRsp: 0x8001 } as const;
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
  const out = Buffer.allocUnsafe(12 + value.length);
  out[0] = PDU.pData;
  out[1] = 0;
  out.writeUInt32BE(6 + value.length, 2);
  out.writeUInt32BE(2 + value.length, 6);
  out[10] = contextId;
  out[11] = (command ? PDV_COMMAND : 0) | (last ? PDV_LAST : 0);
  value.copy(out, 12);
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
