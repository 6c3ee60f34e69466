// plugline's URL / URLSearchParams (src/js/modules/url.mjs) against Node's own WHATWG
// implementation, which serves as the oracle for every input below.
import { test } from "node:test";
import assert from "node:assert/strict";
import { URL as OurURL, URLSearchParams as OurParams } from "../../../src/js/modules/url.mjs";

const FIELDS = ["href", "protocol", "username", "password", "host", "hostname", "port",
                "pathname", "search", "hash", "origin"];

const ABSOLUTE = [
  "http://example.com",
  "https://Example.COM:443/a/b?x=1#frag",
  "http://user:pa ss@host:8080/p/../q/./r?a=b c#h i",
  "https://host/a%20b/ü?q=ü#ü",
  "http://127.0.0.1:3000/",
  "http://[::1]:4096/session",
  "ws://host:80/socket",
  "wss://host:8443/",
  "ftp://files.example/pub/",
  "file:///etc/passwd",
  "file:///home/me/x y.txt",
  "mailto:someone@example.com",
  "urn:isbn:0451450523",
  "data:text/plain,hello world",
  "http://host/a/b/c/../../d",
  "http://host/a/./b/../../..",
  "http://host?only=query",
  "http://host#only-hash",
  "http://host/path?",
  "https://api.example.com/v1/items?filter=a&filter=b&sort=-date",
  "git+ssh://git@github.com/owner/repo.git",
  "  http://trimmed.example/  ",
];

const RELATIVE = [
  ["/abs/path", "http://h/a/b"],
  ["rel/path", "http://h/a/b"],
  ["../up", "http://h/a/b/c"],
  ["./here?x=1", "http://h/a/b"],
  ["?q=2", "http://h/a/b?q=1#f"],
  ["#other", "http://h/a/b?q=1#f"],
  ["", "http://h/a/b?q=1#f"],
  ["//other.host/x", "https://h/a"],
  ["https://full.example/z", "http://h/a"],
  ["../../../../too/far", "http://h/a/b"],
  ["session/123?x=y", "http://localhost:4096/"],
];

function fields(url) {
  return Object.fromEntries(FIELDS.map((f) => [f, url[f]]));
}

test("absolute URLs parse like Node's", () => {
  for (const input of ABSOLUTE) {
    assert.deepEqual(fields(new OurURL(input)), fields(new URL(input)), input);
  }
});

test("relative references resolve like Node's", () => {
  for (const [input, base] of RELATIVE) {
    assert.deepEqual(fields(new OurURL(input, base)), fields(new URL(input, base)), `${input} against ${base}`);
    assert.equal(new OurURL(input, new OurURL(base)).href, new URL(input, base).href);
  }
});

test("invalid input throws a TypeError; canParse says so", () => {
  for (const input of ["", "no-scheme", "http://", "http://host:99999/", "//x"]) {
    assert.throws(() => new OurURL(input), TypeError, input);
    assert.equal(OurURL.canParse(input), URL.canParse(input), input);
  }
  assert.throws(() => new OurURL("x", "not a base"), TypeError);
});

test("setters re-serialize like Node's", () => {
  const cases = [
    ["pathname", "/new path"], ["search", "?a=1&b=2"], ["search", ""], ["hash", "#top"],
    ["hash", ""], ["port", "8080"], ["port", "80"], ["hostname", "Other.Example"],
    ["host", "h2:9000"], ["username", "me"], ["password", "s3cret"], ["protocol", "https"],
  ];
  for (const [field, value] of cases) {
    const ours = new OurURL("http://user@host:81/p?q=1#h");
    const theirs = new URL("http://user@host:81/p?q=1#h");
    ours[field] = value;
    theirs[field] = value;
    assert.equal(ours.href, theirs.href, `${field} = ${value}`);
  }
});

test("searchParams is live in both directions", () => {
  const url = new OurURL("https://h/p?a=1&b=2&a=3");
  assert.deepEqual(url.searchParams.getAll("a"), ["1", "3"]);
  url.searchParams.append("c", "x y");
  url.searchParams.delete("b");
  assert.equal(url.search, "?a=1&a=3&c=x+y");
  url.search = "?z=9";
  assert.equal(url.searchParams.get("z"), "9");
  assert.equal(url.searchParams.get("a"), null);
  assert.equal(JSON.stringify({ u: url }), '{"u":"https://h/p?z=9"}');
});

test("URLSearchParams serializes and parses like Node's", () => {
  const inputs = ["a=1&b=2", "?x=a+b&y=%C3%BC&z", "q=%zz&empty=&=v", "k=1&k=2&k=3"];
  for (const input of inputs) {
    const ours = new OurParams(input);
    const theirs = new URLSearchParams(input);
    assert.deepEqual([...ours], [...theirs], input);
    assert.equal(ours.toString(), theirs.toString(), input);
  }
  const fromObject = new OurParams({ name: "Ada Lovelace", lang: "en&fr", emoji: "😀" });
  assert.equal(fromObject.toString(), new URLSearchParams({ name: "Ada Lovelace", lang: "en&fr", emoji: "😀" }).toString());
  const fromPairs = new OurParams([["b", "2"], ["a", "1"], ["b", "0"]]);
  fromPairs.sort();
  assert.equal(fromPairs.toString(), "a=1&b=2&b=0");
  fromPairs.set("b", "9");
  assert.equal(fromPairs.toString(), "a=1&b=9");
  assert.equal(fromPairs.size, 2);
  assert.ok(fromPairs.has("a", "1") && !fromPairs.has("a", "2"));
});
