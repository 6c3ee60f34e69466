import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  loadPlugin, loadFixtures, shapeFixture, assertRobust, assertMeta, assertResultType,
} from "./helpers.mjs";

const plugin = await loadPlugin("prisma");
const fixtures = loadFixtures("prisma");

describe("prisma: meta", () => {
  it("has the contract's fields", () => assertMeta(plugin.meta, "prisma"));
});

describe("prisma: match", () => {
  const yes95 = [
    "npx prisma migrate dev --name init",
    "npx prisma migrate deploy",
    "prisma migrate reset --force",
    "pnpm exec prisma migrate status",
    "pnpm prisma generate",
    "yarn prisma db push --accept-data-loss",
    "bunx prisma validate",
    "./node_modules/.bin/prisma format",
    "npx prisma@6.19.3 migrate dev",
    "npx --yes prisma generate --schema prisma/schema.prisma",
    "DATABASE_URL=postgres://x npx prisma migrate deploy",
    "cd api && npx prisma migrate deploy",
    "npx dotenv -e .env.test -- prisma migrate reset --force",
    "npm exec prisma -- migrate status",
  ];
  for (const command of yes95) {
    it(`claims ${JSON.stringify(command)} at 0.95`, () => {
      const m = plugin.match(command, "", null);
      assert.equal(m.matched, true);
      assert.equal(m.confidence, 0.95);
    });
  }
  const no = [
    ["echo prisma", ""],
    ["grep -rn prisma package.json", 'package.json:12:    "prisma": "6.19.3",'],
    ["cat prisma/schema.prisma", "model User {\n  id Int @id\n}"],
    ["npm install prisma", "added 36 packages in 45s"],
    ["npx prisma studio", "Prisma Studio is up on http://localhost:5555"],
    ["npx prisma --version", "prisma                  : 6.19.3"],
    ["pytest", "3 passed in 0.05s"],
    ["git log --oneline", "a1b2c3d prisma: add migration"],
  ];
  for (const [command, snippet] of no) {
    it(`does not claim ${JSON.stringify(command)}`, () => {
      assert.equal(plugin.match(command, snippet, 0).matched, false);
    });
  }
  it("claims Prisma's output behind a wrapper at about 0.6", () => {
    const snippet = "> db:migrate\n> prisma migrate deploy\n\nPrisma schema loaded from prisma/schema.prisma\n\nError: P3009\n";
    const m = plugin.match("npm run db:migrate", snippet, 1);
    assert.equal(m.matched, true);
    assert.ok(m.confidence >= 0.5 && m.confidence <= 0.7, String(m.confidence));
  });
});

describe("prisma: shape on the fixtures", () => {
  for (const fx of fixtures) {
    it(fx.name, () => {
      const { result } = shapeFixture(plugin, fx);
      const lines = result.summary.split("\n");
      const header = lines[0];
      const sub = fx.meta.command.replace(/^npx prisma /, "").replace(/ --.*$/, "");
      assert.ok(header.startsWith(`prisma ${sub}: `), `header names the command: ${header}`);
      if (fx.meta.exit_code !== 0) {
        assert.match(header, /FAILED|not yet applied|drift detected|failed migration/, header);
        assert.equal(result.failed, /FAILED|failed migration/.test(header), header);
        assert.ok(header.endsWith(`(exit ${fx.meta.exit_code})`), header);
        for (const code of fx.raw.match(/\bP\d{4}\b/g) || []) assert.ok(header.includes(code), `${code} in header`);
      } else {
        assert.match(header, /: OK — /, header);
        assert.equal(lines.length, 1, `success collapses to one line:\n${result.summary}`);
      }
      const f = fx.meta.facts;
      if (f.applied !== undefined) assert.ok(header.includes(`${f.applied} migration`), header);
      if (f.errors !== undefined) assert.ok(header.includes(`${f.errors} validation error`), header);
      if (f.pending !== undefined) assert.ok(header.includes(`${f.pending} migrations not yet applied`), header);
      if (f.found !== undefined && /no pending|up to date/.test(header)) assert.ok(header.includes(`${f.found} migration`), header);
    });
  }

  it("has a success, a failure and a large run", () => {
    for (const kind of ["passing", "failing", "large"]) {
      assert.ok(fixtures.some((fx) => fx.meta.kind === kind), kind);
    }
  });

  it("counts what it leaves out of a large validation failure", () => {
    const fx = fixtures.find((f) => f.name === "validate-large");
    const { result } = shapeFixture(plugin, fx);
    assert.match(result.summary, /^… \d+ more errors omitted: Type "Decimall"/m);
    assert.match(result.summary, /^… \d+ code-frame lines omitted/m);
  });
});

describe("prisma: fails toward raw", () => {
  it("shows unrecognized success output raw", () => {
    const r = plugin.shape("Some new Prisma message we have never seen\n", { command: "npx prisma migrate deploy", exitCode: 0, outputBytes: 42, outputLines: 2 });
    assertResultType(r, "unknown success");
    assert.equal(r.renderMode, "raw");
  });
  it("shows an unrecognized failure raw", () => {
    const r = plugin.shape("Segmentation fault (core dumped)\n", { command: "npx prisma generate", exitCode: 139, outputBytes: 33, outputLines: 2 });
    assert.equal(r.renderMode, "raw");
  });
  it("never throws on odd input", () => assertRobust(plugin, "npx prisma migrate deploy"));
});
