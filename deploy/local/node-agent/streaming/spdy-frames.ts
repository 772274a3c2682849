// SPDY/3.1 frames as the Kubernetes streaming protocols use them (kubelet's exec/attach/port-forward,
// behind kube-apiserver). Written by hand rather than taken from npm: the one maintained-looking SPDY
// library (spdy-transport 3.0.0, last released 2018) enforces SPDY/3.1 flow control, waiting for
// WINDOW_UPDATE frames once 64 KiB are in flight, and the Go side (moby/spdystream, which
// k8s.io/apimachinery's httpstream/spdy is built on) never sends WINDOW_UPDATE nor honours one: it drops
// both WINDOW_UPDATE and SETTINGS as unhandled frames. A peer of spdystream must therefore neither
// enforce nor expect flow control, which this small codec does by design.
//
// Frame layout (SPDY Protocol draft 3.1, section 2.2): a control frame starts with the control bit, the
// version (3) and a 16-bit type, then 8 bits of flags and a 24-bit length; a data frame starts with a
// 31-bit stream id, then flags and length.

export const SPDY_VERSION = 3;
/** The largest payload a 24-bit length can describe. */
export const MAX_FRAME_PAYLOAD = 0xffffff;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

export const ControlType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

/** RST_STREAM status codes (section 2.6.3). */
export const RstStatus = {
  PROTOCOL_ERROR: 1,
  INVALID_STREAM: 2,
  REFUSED_STREAM: 3,
  UNSUPPORTED_VERSION: 4,
  CANCEL: 5,
  INTERNAL_ERROR: 6,
  FLOW_CONTROL_ERROR: 7,
  STREAM_IN_USE: 8,
  STREAM_ALREADY_CLOSED: 9,
  FRAME_TOO_LARGE: 11,
} as const;

export type SpdyFrame =
  | { type: "data"; streamId: number; fin: boolean; data: Buffer }
  | {
      type: "syn_stream";
      streamId: number;
      associatedTo: number;
      priority: number;
      fin: boolean;
      unidirectional: boolean;
      headerBlock: Buffer;
    }
  | { type: "syn_reply"; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: "headers"; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: "rst_stream"; streamId: number; status: number }
  | { type: "settings"; entries: { flags: number; id: number; value: number }[] }
  | { type: "ping"; id: number }
  | { type: "goaway"; lastGoodStreamId: number; status: number }
  | { type: "window_update"; streamId: number; delta: number }
  /** A control type this codec does not know: the spec says to ignore it. */
  | { type: "unknown"; controlType: number; flags: number; payload: Buffer };

export class SpdyProtocolError extends Error {
  override readonly name = "SpdyProtocolError";
}

const STREAM_ID_MASK = 0x7fffffff;

function need(payload: Buffer, bytes: number, what: string): void {
  if (payload.length < bytes) {
    throw new SpdyProtocolError(`${what} frame too short: ${payload.length} bytes, want at least ${bytes}`);
  }
}

function parseControl(controlType: number, flags: number, payload: Buffer): SpdyFrame {
  const fin = (flags & FLAG_FIN) !== 0;
  switch (controlType) {
    case ControlType.SYN_STREAM:
      need(payload, 10, "SYN_STREAM");
      return {
        type: "syn_stream",
        streamId: payload.readUInt32BE(0) & STREAM_ID_MASK,
        associatedTo: payload.readUInt32BE(4) & STREAM_ID_MASK,
        priority: payload.readUInt8(8) >> 5,
        fin,
        unidirectional: (flags & FLAG_UNIDIRECTIONAL) !== 0,
        headerBlock: payload.subarray(10),
      };
    case ControlType.SYN_REPLY:
    case ControlType.HEADERS:
      need(payload, 4, controlType === ControlType.SYN_REPLY ? "SYN_REPLY" : "HEADERS");
      return {
        type: controlType === ControlType.SYN_REPLY ? "syn_reply" : "headers",
        streamId: payload.readUInt32BE(0) & STREAM_ID_MASK,
        fin,
        headerBlock: payload.subarray(4),
      };
    case ControlType.RST_STREAM:
      need(payload, 8, "RST_STREAM");
      return {
        type: "rst_stream",
        streamId: payload.readUInt32BE(0) & STREAM_ID_MASK,
        status: payload.readUInt32BE(4),
      };
    case ControlType.SETTINGS: {
      need(payload, 4, "SETTINGS");
      const count = payload.readUInt32BE(0);
      if (payload.length !== 4 + count * 8) {
        throw new SpdyProtocolError(`SETTINGS frame announces ${count} entries in ${payload.length} bytes`);
      }
      const entries = [];
      for (let i = 0; i < count; i++) {
        const word = payload.readUInt32BE(4 + i * 8);
        entries.push({ flags: word >>> 24, id: word & 0xffffff, value: payload.readUInt32BE(8 + i * 8) });
      }
      return { type: "settings", entries };
    }
    case ControlType.PING:
      need(payload, 4, "PING");
      return { type: "ping", id: payload.readUInt32BE(0) };
    case ControlType.GOAWAY:
      need(payload, 8, "GOAWAY");
      return {
        type: "goaway",
        lastGoodStreamId: payload.readUInt32BE(0) & STREAM_ID_MASK,
        status: payload.readUInt32BE(4),
      };
    case ControlType.WINDOW_UPDATE:
      need(payload, 8, "WINDOW_UPDATE");
      return {
        type: "window_update",
        streamId: payload.readUInt32BE(0) & STREAM_ID_MASK,
        delta: payload.readUInt32BE(4) & STREAM_ID_MASK,
      };
    default:
      return { type: "unknown", controlType, flags, payload };
  }
}

/** Splits a byte stream into frames; feed it what the socket delivers, in order. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly maxPayload = MAX_FRAME_PAYLOAD) {}

  /** The complete frames `chunk` finishes; a partial frame stays buffered for the next call. */
  push(chunk: Buffer): SpdyFrame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: SpdyFrame[] = [];
    let offset = 0;
    while (this.buffered.length - offset >= 8) {
      const first = this.buffered.readUInt32BE(offset);
      const second = this.buffered.readUInt32BE(offset + 4);
      const flags = second >>> 24;
      const length = second & 0xffffff;
      if (length > this.maxPayload) {
        throw new SpdyProtocolError(`frame of ${length} bytes exceeds the limit of ${this.maxPayload}`);
      }
      if (this.buffered.length - offset - 8 < length) break;
      const payload = Buffer.from(this.buffered.subarray(offset + 8, offset + 8 + length));
      offset += 8 + length;
      if ((first & 0x80000000) !== 0) {
        const version = (first >>> 16) & 0x7fff;
        if (version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
        frames.push(parseControl(first & 0xffff, flags, payload));
      } else {
        frames.push({
          type: "data",
          streamId: first & STREAM_ID_MASK,
          fin: (flags & FLAG_FIN) !== 0,
          data: payload,
        });
      }
    }
    this.buffered = this.buffered.subarray(offset);
    return frames;
  }
}

function controlFrame(controlType: number, flags: number, payload: Buffer): Buffer {
  if (payload.length > MAX_FRAME_PAYLOAD) throw new SpdyProtocolError("control frame payload too large");
  const header = Buffer.alloc(8);
  header.writeUInt32BE((0x80000000 | (SPDY_VERSION << 16) | controlType) >>> 0, 0);
  header.writeUInt32BE(((flags << 24) | payload.length) >>> 0, 4);
  return Buffer.concat([header, payload]);
}

function words(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => out.writeUInt32BE(value >>> 0, i * 4));
  return out;
}

/** Serialises one frame (header blocks must already be compressed). */
export function encodeFrame(frame: SpdyFrame): Buffer {
  const fin = "fin" in frame && frame.fin ? FLAG_FIN : 0;
  switch (frame.type) {
    case "data": {
      if (frame.data.length > MAX_FRAME_PAYLOAD) throw new SpdyProtocolError("data frame payload too large");
      const header = words(frame.streamId & STREAM_ID_MASK, (fin << 24) | frame.data.length);
      return Buffer.concat([header, frame.data]);
    }
    case "syn_stream": {
      const fixed = Buffer.alloc(10);
      fixed.writeUInt32BE(frame.streamId & STREAM_ID_MASK, 0);
      fixed.writeUInt32BE(frame.associatedTo & STREAM_ID_MASK, 4);
      fixed.writeUInt8((frame.priority & 0x7) << 5, 8);
      const flags = fin | (frame.unidirectional ? FLAG_UNIDIRECTIONAL : 0);
      return controlFrame(ControlType.SYN_STREAM, flags, Buffer.concat([fixed, frame.headerBlock]));
    }
    case "syn_reply":
    case "headers":
      return controlFrame(
        frame.type === "syn_reply" ? ControlType.SYN_REPLY : ControlType.HEADERS,
        fin,
        Buffer.concat([words(frame.streamId & STREAM_ID_MASK), frame.headerBlock]),
      );
    case "rst_stream":
      return controlFrame(ControlType.RST_STREAM, 0, words(frame.streamId & STREAM_ID_MASK, frame.status));
    case "settings":
      return controlFrame(
        ControlType.SETTINGS,
        0,
        words(
          frame.entries.length,
          ...frame.entries.flatMap((e) => [(e.flags << 24) | (e.id & 0xffffff), e.value]),
        ),
      );
    case "ping":
      return controlFrame(ControlType.PING, 0, words(frame.id));
    case "goaway":
      return controlFrame(
        ControlType.GOAWAY,
        0,
        words(frame.lastGoodStreamId & STREAM_ID_MASK, frame.status),
      );
    case "window_update":
      return controlFrame(ControlType.WINDOW_UPDATE, 0, words(frame.streamId & STREAM_ID_MASK, frame.delta));
    case "unknown":
      return controlFrame(frame.controlType, frame.flags, frame.payload);
  }
}
