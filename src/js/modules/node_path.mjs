// Node's `path` (POSIX) and the path half of `url`, for plugins: pure string functions that
// reach nothing on the machine. Served as "path", "node:path", "path/posix", "node:path/posix",
// "url" and "node:url" (src/js/opencode_plugin.cc AddPluginModules) through a small per-plugin
// module that calls createPath() with the plugin's working directory (what `path.resolve`
// resolves against, as process.cwd() in Node). Node's path module is the oracle of
// tests/js/modules/node_path.test.mjs.

function assertPath(value, name = "path") {
  if (typeof value !== "string") {
    const error = new TypeError(`The "${name}" argument must be of type string. Received ${value === null ? "null" : typeof value}`);
    error.code = "ERR_INVALID_ARG_TYPE";
    throw error;
  }
}

// Resolves "." and ".." segments; keeps leading ".." of a relative path.
function normalizeSegments(path, absolute) {
  const out = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") {
        out.pop();
      } else if (!absolute) {
        out.push("..");
      }
      continue;
    }
    out.push(segment);
  }
  return out.join("/");
}

function normalize(path) {
  assertPath(path);
  if (path.length === 0) return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  let body = normalizeSegments(path, absolute);
  if (body.length === 0) {
    if (absolute) return "/";
    return trailing ? "./" : ".";
  }
  if (trailing) body += "/";
  return absolute ? `/${body}` : body;
}

function isAbsolute(path) {
  assertPath(path);
  return path.startsWith("/");
}

function join(...parts) {
  if (parts.length === 0) return ".";
  const kept = [];
  for (const part of parts) {
    assertPath(part);
    if (part.length > 0) kept.push(part);
  }
  return kept.length === 0 ? "." : normalize(kept.join("/"));
}

// As Node: the part before the slash that ends the last segment's run of slashes, so
// dirname("/a//b") is "/a/" and dirname("//a") is "//".
function dirname(path) {
  assertPath(path);
  if (path.length === 0) return ".";
  const rooted = path.startsWith("/");
  let end = -1;
  let inTrailingSlashes = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] === "/") {
      if (!inTrailingSlashes) {
        end = i;
        break;
      }
    } else {
      inTrailingSlashes = false;
    }
  }
  if (end === -1) return rooted ? "/" : ".";
  if (rooted && end === 1) return "//";
  return path.slice(0, end);
}

// As Node: a suffix equal to the whole last segment is removed only when nothing precedes it
// (basename("x.js", "x.js") is "", basename("/x.js", "x.js") is "x.js").
function basename(path, suffix) {
  assertPath(path);
  if (suffix !== undefined) assertPath(suffix, "suffix");
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  if (end === 0) return "";
  const start = path.lastIndexOf("/", end - 1) + 1;
  const base = path.slice(start, end);
  if (suffix === undefined || suffix.length === 0 || !base.endsWith(suffix)) return base;
  if (base === suffix) return start > 0 ? base : "";
  return base.slice(0, base.length - suffix.length);
}

// None, or a leading dot (".bashrc"), is "".
function extname(path) {
  assertPath(path);
  return extOf(basename(path));
}

function extOf(base) {
  const dot = base.lastIndexOf(".");
  return dot <= 0 || base === ".." ? "" : base.slice(dot);
}

// As Node: dir is what precedes the slash before the last segment ("/" for a rooted path with
// one segment), so parse("///a").dir is "//" although dirname("///a") is "//" too, and
// parse("//a").dir is "/".
function parse(path) {
  assertPath(path);
  const rooted = path.startsWith("/");
  const root = rooted ? "/" : "";
  if (path.length === 0) return { root, dir: "", base: "", ext: "", name: "" };
  const first = rooted ? 1 : 0;
  let end = path.length;
  while (end > first && path[end - 1] === "/") end--;
  const slash = path.lastIndexOf("/", end - 1);
  const startPart = slash >= first ? slash + 1 : 0;
  const base = path.slice(startPart === 0 ? first : startPart, end);
  const dir = startPart > 0 ? path.slice(0, startPart - 1) : root;
  // Node's own quirk, kept for fidelity: "/.." (one rooted segment "..") parses with ext ".".
  const ext = rooted && startPart === 0 && base === ".." ? "." : extOf(base);
  return { root, dir, base, ext, name: base.slice(0, base.length - ext.length) };
}

function format(object) {
  if (object === null || typeof object !== "object") {
    const error = new TypeError(`The "pathObject" argument must be of type object. Received ${object === null ? "null" : typeof object}`);
    error.code = "ERR_INVALID_ARG_TYPE";
    throw error;
  }
  const dir = object.dir || object.root;
  let base = object.base;
  if (!base) {
    const ext = object.ext ? (object.ext.startsWith(".") ? object.ext : `.${object.ext}`) : "";
    base = `${object.name || ""}${ext}`;
  }
  if (!dir) return base;
  return dir === object.root ? `${dir}${base}` : `${dir}/${base}`;
}

function toNamespacedPath(path) {
  return path;
}

export function createPath(cwd) {
  const workingDirectory = typeof cwd === "string" && cwd.startsWith("/") ? cwd : "/";

  function resolve(...parts) {
    let resolved = "";
    let absolute = false;
    for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
      const part = i >= 0 ? parts[i] : workingDirectory;
      assertPath(part, `paths[${i}]`);
      if (part.length === 0) continue;
      resolved = resolved.length > 0 ? `${part}/${resolved}` : part;
      absolute = part.startsWith("/");
    }
    const body = normalizeSegments(resolved, true);
    return `/${body}`;
  }

  function relative(from, to) {
    assertPath(from, "from");
    assertPath(to, "to");
    if (from === to) return "";
    const a = resolve(from);
    const b = resolve(to);
    if (a === b) return "";
    const fromParts = a === "/" ? [] : a.slice(1).split("/");
    const toParts = b === "/" ? [] : b.slice(1).split("/");
    let common = 0;
    while (common < fromParts.length && common < toParts.length && fromParts[common] === toParts[common]) {
      common++;
    }
    const up = fromParts.slice(common).map(() => "..");
    return [...up, ...toParts.slice(common)].join("/");
  }

  const path = {
    sep: "/",
    delimiter: ":",
    normalize, isAbsolute, join, dirname, basename, extname, parse, format, resolve, relative,
    toNamespacedPath,
  };
  path.posix = path;
  // Windows paths are not this platform's: path.win32 is left out rather than half done.
  return path;
}

// url's file-path helpers (the URL class itself is a global, plugline:url).
export function createUrlHelpers(path) {
  function fileURLToPath(value) {
    const url = typeof value === "string" ? new URL(value) : value;
    if (url === null || typeof url !== "object" || typeof url.protocol !== "string") {
      const error = new TypeError(`The "path" argument must be of type string or an instance of URL. Received ${url === null ? "null" : typeof url}`);
      error.code = "ERR_INVALID_ARG_TYPE";
      throw error;
    }
    if (url.protocol !== "file:") {
      const error = new TypeError("The URL must be of scheme file");
      error.code = "ERR_INVALID_URL_SCHEME";
      throw error;
    }
    if (url.hostname !== "" && url.hostname !== "localhost") {
      const error = new TypeError(`File URL host must be "localhost" or empty on ${"linux"}`);
      error.code = "ERR_INVALID_FILE_URL_HOST";
      throw error;
    }
    if (/%2f/i.test(url.pathname)) {
      const error = new TypeError("File URL path must not include encoded / characters");
      error.code = "ERR_INVALID_FILE_URL_PATH";
      throw error;
    }
    return decodeURIComponent(url.pathname);
  }

  function pathToFileURL(filePath) {
    let resolved = path.resolve(filePath);
    if (filePath.endsWith("/") && !resolved.endsWith("/")) resolved += "/";
    // Characters a file path may hold that a URL path must escape (Node's list for POSIX).
    const encoded = resolved.replace(/%/g, "%25").replace(/\\/g, "%5C").replace(/\n/g, "%0A")
      .replace(/\r/g, "%0D").replace(/\t/g, "%09").replace(/#/g, "%23").replace(/\?/g, "%3F");
    return new URL(`file://${encoded}`);
  }

  return { fileURLToPath, pathToFileURL };
}
