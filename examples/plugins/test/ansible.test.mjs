import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  loadPlugin, loadFixtures, shapeFixture, assertRobust, assertMeta, assertResultType,
} from "./helpers.mjs";

const plugin = await loadPlugin("ansible");
const fixtures = loadFixtures("ansible");

describe("ansible: meta", () => {
  it("has the contract's fields", () => assertMeta(plugin.meta, "ansible"));
});

describe("ansible: match", () => {
  for (const command of [
    "ansible-playbook -i inventory.ini site.yml",
    "ansible-playbook site.yml --check --diff",
    "ANSIBLE_NOCOWS=1 ansible-playbook -i hosts deploy.yml -l web",
    "cd infra && ansible-playbook playbooks/db.yml",
    "/usr/bin/ansible-playbook site.yml",
    "poetry run ansible-playbook site.yml",
  ]) {
    it(`claims ${JSON.stringify(command)} at 0.95`, () => {
      const m = plugin.match(command, "", null);
      assert.equal(m.matched, true);
      assert.equal(m.confidence, 0.95);
    });
  }
  for (const [command, snippet] of [
    ["echo ansible-playbook", "ansible-playbook"],
    ["ansible-lint site.yml", "Passed: 0 failure(s), 0 warning(s) on 3 files."],
    ["grep -rn ansible-playbook Makefile", "Makefile:3:\tansible-playbook site.yml"],
    ["cat site.yml", "- name: Configure web host\n  hosts: web\n"],
  ]) {
    it(`does not claim ${JSON.stringify(command)}`, () => {
      assert.equal(plugin.match(command, snippet, 0).matched, false);
    });
  }
  it("claims ansible's output behind a wrapper at about 0.6", () => {
    const snippet = "PLAY [all] *****\n\nTASK [ping] *****\nok: [web1]\n\nPLAY RECAP *****\nweb1 : ok=1 changed=0 unreachable=0 failed=0\n";
    const m = plugin.match("make deploy", snippet, 0);
    assert.equal(m.matched, true);
    assert.ok(m.confidence >= 0.5 && m.confidence <= 0.7);
  });
  it("does not claim a lone PLAY-looking line", () => {
    assert.equal(plugin.match("make", "PLAY [x] ****\n", 0).matched, false);
  });
});

describe("ansible: shape on the fixtures", () => {
  for (const fx of fixtures) {
    it(fx.name, () => {
      const { result } = shapeFixture(plugin, fx);
      const lines = result.summary.split("\n");
      const header = lines[0];
      assert.ok(header.startsWith("ansible-playbook: "), header);
      const f = fx.meta.facts;
      if (fx.meta.exit_code === 0) {
        assert.match(header, /: OK — /, header);
        assert.equal(lines.length, 1, `success collapses to one line:\n${result.summary}`);
        if (f.hosts !== undefined) assert.ok(header.includes(`${f.hosts} hosts`), header);
        if (f.plays !== undefined) assert.ok(header.includes(`${f.plays} play`), header);
        if (f.tasks !== undefined) assert.ok(header.includes(`${f.tasks} tasks`), header);
        for (const k of ["ok", "changed", "skipped"]) if (f[k] !== undefined) assert.ok(header.includes(`${k}=${f[k]}`), header);
      } else {
        assert.match(header, /failed|unreachable|error/, header);
        assert.equal(result.failed, true, "a failure says so, whatever the status");
        assert.ok(header.endsWith(`(exit ${fx.meta.exit_code})`), header);
        // Results that went well are counted, never shown.
        assert.ok(!lines.some((l) => /^(ok|changed|skipping): \[/.test(l)), result.summary);
        if (f.unreachable !== undefined) assert.ok(header.includes(`${f.unreachable} unreachable`), header);
        if (f.failed_hosts !== undefined) assert.ok(header.includes(`${f.failed_hosts} hosts failed`), header);
      }
    });
  }

  it("has a success, a failure and a large run", () => {
    for (const kind of ["passing", "failing", "large"]) assert.ok(fixtures.some((fx) => fx.meta.kind === kind), kind);
  });

  it("keeps the recap line of every host that failed", () => {
    for (const fx of fixtures.filter((f) => f.meta.exit_code !== 0)) {
      const { result, text } = shapeFixture(plugin, fx);
      for (const l of text.split("\n")) {
        if (/^\S+\s+: ok=\d+.*(failed=[1-9]|unreachable=[1-9])/.test(l)) assert.ok(result.summary.includes(l.trimEnd()), `${fx.name}: ${l}`);
      }
    }
  });
});

describe("ansible: fails toward raw", () => {
  it("shows output without a recap raw (--list-tasks)", () => {
    const text = "\nplaybook: site.yml\n\n  play #1 (web): Configure web servers\tTAGS: []\n    tasks:\n      Create application directories\tTAGS: []\n";
    const r = plugin.shape(text, { command: "ansible-playbook site.yml --list-tasks", exitCode: 0, outputBytes: text.length, outputLines: 6 });
    assertResultType(r, "list-tasks");
    assert.equal(r.renderMode, "raw");
  });
  it("never throws on odd input", () => assertRobust(plugin, "ansible-playbook site.yml"));
});
