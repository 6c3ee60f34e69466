// `URL` and `URLSearchParams` for plugins (src/js/README.md "The JS environment"): plain V8 has neither.
// Evaluated before every plugin module (the wrapper imports it first, as "plugline:url"), it
// defines the two globals when they are missing.
//
// A practical subset of the WHATWG URL Standard, not the whole of it: absolute URLs with any
// scheme; "special" schemes (http, https, ws, wss, ftp, file) with user, password, host (lower-
// cased; IPv6 in brackets kept as written; no IDNA/punycode), port (default ports dropped),
// path with "." and ".." resolved, query and fragment; relative references resolved against a
// base; percent-encoding of spaces, controls, non-ASCII (UTF-8) and the characters the standard
// encodes in each part; setters for every component; URLSearchParams in full
// (application/x-www-form-urlencoded). What it does not do: IDNA, IPv4 number normalization
// ("0x7f.1"), backslashes as slashes, Windows drive letters in file URLs.

const SPECIAL = { "ftp:": "21", "file:": "", "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };

const encoder = new TextEncoder();

// Percent-encodes controls, non-ASCII and `mustEncode`; spaces too unless `keepSpace` (the C0
// control set of opaque paths).
function percentEncode(text, mustEncode, keepSpace = false) {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (code > 0x7e || code < 0x20 || (code === 0x20 && !keepSpace) || mustEncode.includes(ch)) {
      for (const byte of encoder.encode(ch)) out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
    } else {
      out += ch;
    }
  }
  return out;
}
const PATH_SET = "\"#<>?`{}";
const QUERY_SET = "\"#<>";
const SPECIAL_QUERY_SET = "\"#<>'";
const FRAGMENT_SET = "\"<>`";
const USERINFO_SET = "\"#<>?`{}/:;=@[\\]^|";

function normalizePath(path) {
  const segments = path.split("/");
  const out = [];
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i];
    const last = i === segments.length - 1;
    const lower = segment.toLowerCase();
    if (segment === ".." || lower === "%2e%2e" || lower === ".%2e" || lower === "%2e.") {
      out.pop();
      if (last) out.push("");
    } else if (segment === "." || lower === "%2e") {
      if (last) out.push("");
    } else {
      out.push(segment);
    }
  }
  return "/" + out.join("/");
}

class URLSearchParamsImpl {
  #list = [];
  #url = null;

  constructor(init = "") {
    if (typeof init === "object" && init !== null) {
      if (typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const [name, value, extra] = [...pair];
          if (pair.length !== 2 && extra === undefined && value === undefined) {
            throw new TypeError("URLSearchParams: each pair must have two elements");
          }
          this.#list.push([String(name), String(value)]);
        }
      } else {
        for (const key of Object.keys(init)) this.#list.push([key, String(init[key])]);
      }
    } else {
      this.#parse(String(init));
    }
  }

  static _attach(params, url) { params.#url = url; }
  static _reset(params, query) { params.#list = []; params.#parse(query); }

  #parse(text) {
    if (text.startsWith("?")) text = text.slice(1);
    for (const part of text.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      const name = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? "" : part.slice(eq + 1);
      this.#list.push([decodeForm(name), decodeForm(value)]);
    }
  }
  #update() {
    if (this.#url !== null) URLImpl._setQueryFromParams(this.#url, this.toString());
  }

  get size() { return this.#list.length; }
  append(name, value) { this.#list.push([String(name), String(value)]); this.#update(); }
  delete(name, value) {
    name = String(name);
    this.#list = this.#list.filter(([n, v]) => n !== name || (value !== undefined && v !== String(value)));
    this.#update();
  }
  get(name) { const found = this.#list.find(([n]) => n === String(name)); return found ? found[1] : null; }
  getAll(name) { return this.#list.filter(([n]) => n === String(name)).map(([, v]) => v); }
  has(name, value) {
    return this.#list.some(([n, v]) => n === String(name) && (value === undefined || v === String(value)));
  }
  set(name, value) {
    name = String(name);
    const index = this.#list.findIndex(([n]) => n === name);
    if (index < 0) {
      this.#list.push([name, String(value)]);
    } else {
      this.#list[index][1] = String(value);
      this.#list = this.#list.filter(([n], i) => n !== name || i === index);
    }
    this.#update();
  }
  sort() {
    this.#list = this.#list.map((pair, i) => [pair, i])
      .sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j))
      .map(([pair]) => pair);
    this.#update();
  }
  forEach(callback, thisArg) { for (const [n, v] of this.#list) callback.call(thisArg, v, n, this); }
  *entries() { for (const [n, v] of this.#list) yield [n, v]; }
  *keys() { for (const [n] of this.#list) yield n; }
  *values() { for (const [, v] of this.#list) yield v; }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return this.#list.map(([n, v]) => `${encodeForm(n)}=${encodeForm(v)}`).join("&"); }
  get [Symbol.toStringTag]() { return "URLSearchParams"; }
}

function encodeForm(text) {
  let out = "";
  for (const ch of text) {
    if (/[A-Za-z0-9*\-._]/.test(ch)) {
      out += ch;
    } else if (ch === " ") {
      out += "+";
    } else {
      for (const byte of encoder.encode(ch)) out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
    }
  }
  return out;
}

function decodeForm(text) {
  const bytes = [];
  const plain = text.replaceAll("+", " ");
  let i = 0;
  while (i < plain.length) {
    if (plain[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(plain.slice(i + 1, i + 3))) {
      bytes.push(parseInt(plain.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    const ch = String.fromCodePoint(plain.codePointAt(i));
    for (const byte of encoder.encode(ch)) bytes.push(byte);
    i += ch.length;
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function invalid(input) { return new TypeError(`Invalid URL: ${input}`); }

// Parses an absolute URL into its parts; null when it is not one.
function parseAbsolute(input) {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(input);
  if (!match) return null;
  const protocol = match[1].toLowerCase() + ":";
  let rest = match[2];
  const parts = { protocol, username: "", password: "", hostname: "", port: "", pathname: "",
                  search: "", hash: "", opaque: !(protocol in SPECIAL) && !rest.startsWith("/") };
  const hashAt = rest.indexOf("#");
  if (hashAt >= 0) { parts.hash = "#" + percentEncode(rest.slice(hashAt + 1), FRAGMENT_SET); rest = rest.slice(0, hashAt); }
  const queryAt = rest.indexOf("?");
  if (queryAt >= 0) {
    // "?" alone stays in href (search reads "").
    parts.search = "?" + percentEncode(rest.slice(queryAt + 1), protocol in SPECIAL ? SPECIAL_QUERY_SET : QUERY_SET);
    rest = rest.slice(0, queryAt);
  }
  if (protocol in SPECIAL || rest.startsWith("//")) {
    if (!rest.startsWith("//")) {
      if (protocol === "file:") { rest = "//" + rest; } else if (protocol in SPECIAL) { rest = "//" + rest.replace(/^\/*/, ""); }
    }
    rest = rest.slice(2);
    const slash = rest.indexOf("/");
    let authority = slash < 0 ? rest : rest.slice(0, slash);
    let path = slash < 0 ? "" : rest.slice(slash);
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      authority = authority.slice(at + 1);
      const colon = userinfo.indexOf(":");
      parts.username = percentEncode(colon < 0 ? userinfo : userinfo.slice(0, colon), USERINFO_SET);
      parts.password = colon < 0 ? "" : percentEncode(userinfo.slice(colon + 1), USERINFO_SET);
    }
    const portMatch = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
    if (!portMatch) return undefined;
    parts.hostname = portMatch[1].toLowerCase();
    if (/[\s<>^|%]/.test(parts.hostname) && !parts.hostname.startsWith("[")) return undefined;
    const port = portMatch[2] ?? "";
    if (port !== "" && Number(port) > 65535) return undefined;
    parts.port = port === "" || port.replace(/^0+(?=\d)/, "") === SPECIAL[protocol] ? "" : String(Number(port));
    if (protocol in SPECIAL && protocol !== "file:" && parts.hostname === "") return undefined;
    parts.pathname = normalizePath(percentEncode(path === "" && protocol in SPECIAL ? "/" : path, PATH_SET));
    if (path === "" && !(protocol in SPECIAL)) parts.pathname = "";
  } else {
    parts.pathname = parts.opaque ? percentEncode(rest, "", true) : normalizePath(percentEncode(rest, PATH_SET));
  }
  return parts;
}

function serialize(p) {
  let out = p.protocol;
  if (!p.opaque && (p.protocol in SPECIAL || p.hostname !== "" || p.protocol === "file:")) {
    out += "//";
    if (p.username !== "" || p.password !== "") {
      out += p.username + (p.password !== "" ? ":" + p.password : "") + "@";
    }
    out += p.hostname + (p.port !== "" ? ":" + p.port : "");
  }
  return out + p.pathname + p.search + p.hash;
}

function resolve(input, base) {
  const absolute = parseAbsolute(input);
  if (absolute !== null) return absolute;
  if (base === undefined) return undefined;
  const b = { ...base };
  if (b.opaque) return input.startsWith("#") ? { ...b, hash: "#" + percentEncode(input.slice(1), FRAGMENT_SET) } : undefined;
  if (input.startsWith("//")) return parseAbsolute(b.protocol + input);
  let rest = input;
  let hash = "";
  const hashAt = rest.indexOf("#");
  if (hashAt >= 0) { hash = "#" + percentEncode(rest.slice(hashAt + 1), FRAGMENT_SET); rest = rest.slice(0, hashAt); }
  let search = null;
  const queryAt = rest.indexOf("?");
  if (queryAt >= 0) {
    search = "?" + percentEncode(rest.slice(queryAt + 1), b.protocol in SPECIAL ? SPECIAL_QUERY_SET : QUERY_SET);
    rest = rest.slice(0, queryAt);
  }
  if (rest === "") {
    return { ...b, search: search ?? b.search, hash: hashAt >= 0 || search !== null || input === "" ? hash : b.hash };
  }
  let path;
  if (rest.startsWith("/")) {
    path = rest;
  } else {
    const dir = b.pathname.slice(0, b.pathname.lastIndexOf("/") + 1) || "/";
    path = dir + rest;
  }
  return { ...b, pathname: normalizePath(percentEncode(path, PATH_SET)), search: search ?? "", hash };
}

class URLImpl {
  #parts;
  #params;

  constructor(url, base) {
    const input = String(url).trim();
    let baseParts;
    if (base !== undefined) {
      baseParts = base instanceof URLImpl ? base.#parts : parseAbsolute(String(base).trim());
      if (!baseParts) throw invalid(String(base));
    }
    const parts = resolve(input, baseParts);
    if (!parts) throw invalid(input);
    this.#parts = parts;
    this.#params = new URLSearchParamsImpl(parts.search);
    URLSearchParamsImpl._attach(this.#params, this);
  }

  static canParse(url, base) {
    try { new URLImpl(url, base); return true; } catch { return false; }
  }
  static _setQueryFromParams(url, query) { url.#parts.search = query === "" ? "" : "?" + query; }

  #reparse(href) {
    const parts = parseAbsolute(href);
    if (!parts) return;
    this.#parts = parts;
    URLSearchParamsImpl._reset(this.#params, parts.search);
  }

  get href() { return serialize(this.#parts); }
  set href(value) { const parts = parseAbsolute(String(value)); if (!parts) throw invalid(value); this.#reparse(String(value)); }
  get origin() {
    const p = this.#parts;
    if (!(p.protocol in SPECIAL) || p.protocol === "file:") return "null";
    return `${p.protocol}//${p.hostname}${p.port !== "" ? ":" + p.port : ""}`;
  }
  get protocol() { return this.#parts.protocol; }
  set protocol(value) {
    const scheme = String(value).replace(/:.*$/, "").toLowerCase() + ":";
    if (!/^[a-z][a-z0-9+.-]*:$/.test(scheme) || (scheme in SPECIAL) !== (this.#parts.protocol in SPECIAL)) return;
    this.#parts.protocol = scheme;
    if (this.#parts.port === SPECIAL[scheme]) this.#parts.port = "";
  }
  get username() { return this.#parts.username; }
  set username(value) { this.#parts.username = percentEncode(String(value), USERINFO_SET); }
  get password() { return this.#parts.password; }
  set password(value) { this.#parts.password = percentEncode(String(value), USERINFO_SET); }
  get host() { return this.#parts.hostname + (this.#parts.port !== "" ? ":" + this.#parts.port : ""); }
  set host(value) {
    const match = /^(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?/.exec(String(value));
    if (!match || this.#parts.opaque) return;
    this.#parts.hostname = match[1].toLowerCase();
    if (match[2] !== undefined) this.port = match[2];
  }
  get hostname() { return this.#parts.hostname; }
  set hostname(value) { if (!this.#parts.opaque) this.#parts.hostname = String(value).toLowerCase(); }
  get port() { return this.#parts.port; }
  set port(value) {
    const port = String(value);
    if (port === "") { this.#parts.port = ""; return; }
    if (!/^\d+/.test(port) || Number(port.match(/^\d+/)[0]) > 65535) return;
    const number = String(Number(port.match(/^\d+/)[0]));
    this.#parts.port = number === SPECIAL[this.#parts.protocol] ? "" : number;
  }
  get pathname() { return this.#parts.pathname; }
  set pathname(value) {
    if (this.#parts.opaque) return;
    let path = String(value);
    if (!path.startsWith("/")) path = "/" + path;
    this.#parts.pathname = normalizePath(percentEncode(path, PATH_SET));
  }
  get search() { return this.#parts.search === "?" ? "" : this.#parts.search; }
  set search(value) {
    const query = String(value).replace(/^\?/, "");
    this.#parts.search = query === "" ? "" : "?" + percentEncode(query, this.#parts.protocol in SPECIAL ? SPECIAL_QUERY_SET : QUERY_SET);
    URLSearchParamsImpl._reset(this.#params, this.#parts.search);
  }
  get searchParams() { return this.#params; }
  get hash() { return this.#parts.hash === "#" ? "" : this.#parts.hash; }
  set hash(value) {
    const fragment = String(value).replace(/^#/, "");
    this.#parts.hash = fragment === "" ? "" : "#" + percentEncode(fragment, FRAGMENT_SET);
  }
  toString() { return this.href; }
  toJSON() { return this.href; }
  get [Symbol.toStringTag]() { return "URL"; }
}

for (const [name, value] of [["URL", URLImpl], ["URLSearchParams", URLSearchParamsImpl]]) {
  if (typeof globalThis[name] !== "function") {
    Object.defineProperty(value, "name", { value: name });
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  }
}

export { URLImpl as URL, URLSearchParamsImpl as URLSearchParams };
