// TextEncoder and TextDecoder. Strings come back as arrays of code points, so the test sees
// exactly which characters (U+FFFD included) were produced.
const codePoints = (s) => Array.from(s, (c) => c.codePointAt(0));
const attempt = (fn) => {
  try {
    return fn();
  } catch (e) {
    return `${e.constructor.name}: ${e.message}`;
  }
};

export default {
  encode(text) {
    return Array.from(new TextEncoder().encode(text));
  },
  encodeDefaults() {
    const encoder = new TextEncoder();
    const bytes = encoder.encode();
    return [encoder.encoding, bytes instanceof Uint8Array, bytes.length, String(encoder)];
  },
  encodeInto(text, size, offset = 0) {
    const buffer = new Uint8Array(size + offset).fill(0xaa);
    const result = new TextEncoder().encodeInto(text, buffer.subarray(offset));
    return { read: result.read, written: result.written, bytes: Array.from(buffer) };
  },
  decode(bytes, options) {
    return codePoints(new TextDecoder("utf-8", options).decode(new Uint8Array(bytes)));
  },
  decodeViews() {
    const bytes = new TextEncoder().encode("héllo wörld, and a longer tail past 64 bytes..........");
    const decoder = new TextDecoder();
    const copy = new Uint8Array(bytes);
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    return [
      decoder.decode(copy),
      decoder.decode(copy.buffer),
      decoder.decode(new DataView(copy.buffer, 1, 5)),
      decoder.decode(new Uint16Array(new Uint8Array([0x68, 0x69, 0x21, 0x3f]).buffer)),
      decoder.decode(copy.subarray(3, 6)),
      decoder.decode(shared),
      decoder.decode(),
      decoder.decode(undefined),
      decoder.decode(new Uint8Array(0)),
    ];
  },
  decodeErrors() {
    return [
      attempt(() => new TextDecoder().decode("not bytes")),
      attempt(() => new TextDecoder().decode([1, 2])),
      attempt(() => new TextDecoder("latin1")),
      attempt(() => new TextDecoder("utf-16le")),
      attempt(() => TextDecoder()),
      attempt(() => TextEncoder.prototype.encode.call({}, "x")),
      attempt(() => new TextEncoder().encodeInto("x", [])),
      attempt(() => new TextDecoder("utf-8", 5)),
    ];
  },
  labels() {
    return [" UTF-8 ", "utf8", "Unicode-1-1-UTF-8", "unicode20utf8"].map(
      (label) => new TextDecoder(label).encoding,
    );
  },
  options() {
    const plain = new TextDecoder();
    const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    return [plain.fatal, plain.ignoreBOM, strict.fatal, strict.ignoreBOM, String(strict)];
  },
  fatal(bytes) {
    return attempt(() => codePoints(new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes))));
  },
  stream(chunks, options) {
    const decoder = new TextDecoder("utf-8", options);
    let out = "";
    for (const chunk of chunks) out += decoder.decode(new Uint8Array(chunk), { stream: true });
    out += decoder.decode();
    return codePoints(out);
  },
  fatalStream(chunks) {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    return attempt(() => {
      let out = "";
      for (const chunk of chunks) out += decoder.decode(new Uint8Array(chunk), { stream: true });
      return codePoints(out + decoder.decode());
    });
  },
  roundTrip(text) {
    const back = new TextDecoder().decode(new TextEncoder().encode(text));
    return [back === text, back.length];
  },
  bigEncode(megabytes) {
    return new TextEncoder().encode("x".repeat(megabytes << 20)).length;
  },
  environment() {
    return {
      process: typeof process,
      require: typeof require,
      module: typeof module,
      Buffer: typeof Buffer,
      fetch: typeof fetch,
      TextEncoder: typeof TextEncoder,
      TextDecoder: typeof TextDecoder,
      setTimeout: typeof setTimeout,
      queueMicrotask: typeof queueMicrotask,
      console: typeof console,
      globals: Object.getOwnPropertyNames(globalThis).filter((name) =>
        ["process", "require", "fs", "os", "Deno", "Bun", "importScripts"].includes(name),
      ),
    };
  },
};
