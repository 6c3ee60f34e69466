// plugline's `path` and url helpers (src/js/modules/node_path.mjs) against Node's own
// path.posix and node:url, which serve as the oracle for every input below.
import { test } from "node:test";
import assert from "node:assert/strict";
import nodePath from "node:path";
import * as nodeUrl from "node:url";
import { createPath, createUrlHelpers } from "../../../src/js/modules/node_path.mjs";

const posix = nodePath.posix;
const ours = createPath(process.cwd());
const urls = createUrlHelpers(ours);

const PATHS = [
  "", ".", "..", "/", "//", "///", "a", "a/", "a//", "/a", "//a", "///a", "/a/", "a/b", "a/b/",
  "/a/b/c", "/a/b/c/", "a/./b", "a/../b", "../a", "../../a/b", "a/b/../../..", "/..", "/../a",
  "./", "./a", ".a", "a.", "a..", "..a", ".bashrc", "/home/me/.bashrc", "file.txt",
  "/home/me/file.tar.gz", "dir/file.d.ts", "a/b.c/d", "a/b.c/", "/x/y/./z/../w", "a/b/c/./../../d",
  "...", "/...", "a/...", "/.", "a/.", "/.a", "../", "/../",
  "C:\\dir\\file.txt", "a b/c d.js", "ü/ñ.md", "/a//b///c", "..//..//", "./../.", "src/index.ts",
];

test("normalize, isAbsolute, dirname, basename, extname, parse match Node", () => {
  for (const p of PATHS) {
    assert.equal(ours.normalize(p), posix.normalize(p), `normalize(${JSON.stringify(p)})`);
    assert.equal(ours.isAbsolute(p), posix.isAbsolute(p), `isAbsolute(${JSON.stringify(p)})`);
    assert.equal(ours.dirname(p), posix.dirname(p), `dirname(${JSON.stringify(p)})`);
    assert.equal(ours.basename(p), posix.basename(p), `basename(${JSON.stringify(p)})`);
    assert.equal(ours.extname(p), posix.extname(p), `extname(${JSON.stringify(p)})`);
    assert.deepEqual(ours.parse(p), posix.parse(p), `parse(${JSON.stringify(p)})`);
    assert.equal(ours.format(ours.parse(p)), posix.format(posix.parse(p)), `format(parse(${JSON.stringify(p)}))`);
  }
});

test("basename with a suffix matches Node", () => {
  for (const [p, ext] of [["/a/b.js", ".js"], ["b.js", "js"], ["aaa", "aaa"], ["a.js", ".ts"],
                          ["/a/b.js/", ".js"], ["x.d.ts", ".d.ts"], ["x", ""], [".js", ".js"]]) {
    assert.equal(ours.basename(p, ext), posix.basename(p, ext), `basename(${p}, ${ext})`);
  }
});

test("join, resolve and relative match Node", () => {
  const lists = [[], [""], ["", ""], ["a"], ["a", "b"], ["/a", "b"], ["a", "/b"], ["a", "", "b"],
                 ["a/", "/b/"], ["a", "..", "..", "b"], ["/", ".."], [".", "a"], ["/a/b", "../../.."],
                 ["x", "y/", "./z"], ["/foo", "/bar", "baz"], ["foo/bar", "./baz"], ["/var/lib", "../", "file/"]];
  for (const parts of lists) {
    assert.equal(ours.join(...parts), posix.join(...parts), `join(${JSON.stringify(parts)})`);
    assert.equal(ours.resolve(...parts), posix.resolve(...parts), `resolve(${JSON.stringify(parts)})`);
  }
  const pairs = [["/a/b", "/a/b"], ["/a/b/c", "/a/d"], ["/data/orandea/test/aaa", "/data/orandea/impl/bbb"],
                 ["/", "/a/b"], ["/a/b", "/"], ["a", "b"], ["a/b", "a"], ["", ""], ["/a/b/", "/a/b/c/"],
                 ["/foo/bar", "/foo/barbaz"], ["x", "/abs"]];
  for (const [from, to] of pairs) {
    assert.equal(ours.relative(from, to), posix.relative(from, to), `relative(${from}, ${to})`);
  }
});

test("format matches Node", () => {
  const objects = [{ root: "/", base: "file.txt" }, { dir: "/home/me", base: "f" },
                   { root: "/", name: "file", ext: ".txt" }, { name: "x", ext: "js" },
                   { dir: "d", name: "n", ext: ".e", base: "b.c" }, {}, { root: "/", dir: "/", base: "x" }];
  for (const object of objects) {
    assert.equal(ours.format(object), posix.format(object), `format(${JSON.stringify(object)})`);
  }
});

test("constants and errors match Node", () => {
  assert.equal(ours.sep, posix.sep);
  assert.equal(ours.delimiter, posix.delimiter);
  assert.equal(ours.posix, ours);
  for (const fn of ["join", "normalize", "dirname", "basename", "extname", "resolve"]) {
    assert.throws(() => ours[fn](42), { name: "TypeError", code: "ERR_INVALID_ARG_TYPE" }, fn);
    assert.throws(() => posix[fn](42), { name: "TypeError", code: "ERR_INVALID_ARG_TYPE" }, fn);
  }
});

test("fileURLToPath and pathToFileURL match node:url", () => {
  for (const href of ["file:///etc/passwd", "file:///home/me/x%20y.txt", "file://localhost/tmp/a",
                      "file:///tmp/%C3%BC.md", "file:///a/b/"]) {
    assert.equal(urls.fileURLToPath(href), nodeUrl.fileURLToPath(href), href);
    assert.equal(urls.fileURLToPath(new URL(href)), nodeUrl.fileURLToPath(new URL(href)), href);
  }
  for (const bad of ["http://x/y", "file://host/x", "file:///a%2Fb"]) {
    assert.throws(() => urls.fileURLToPath(bad), TypeError, bad);
    assert.throws(() => nodeUrl.fileURLToPath(bad), TypeError, bad);
  }
  for (const p of ["/tmp/a b", "/tmp/x#y?z", "/tmp/100%", "/tmp/ü", "rel/file.js", "/dir/", "/a\\b",
                   "/tab\there", "/q\"<>"]) {
    assert.equal(urls.pathToFileURL(p).href, nodeUrl.pathToFileURL(p).href, p);
  }
});
