import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  loadPlugin, loadFixtures, shapeFixture, assertRobust, assertMeta, assertResultType,
} from "./helpers.mjs";

const plugin = await loadPlugin("terraform");
const fixtures = loadFixtures("terraform");

describe("terraform: meta", () => {
  it("has the contract's fields", () => assertMeta(plugin.meta, "terraform"));
});

describe("terraform: match", () => {
  for (const command of [
    "terraform plan",
    "terraform apply -auto-approve",
    "terraform -chdir=infra/prod plan -out tfplan",
    "tofu init",
    "TF_LOG=off terraform validate",
    "cd infra && terraform destroy -auto-approve",
  ]) {
    it(`claims ${JSON.stringify(command)} at 0.95`, () => {
      const m = plugin.match(command, "", null);
      assert.equal(m.matched, true);
      assert.equal(m.confidence, 0.95);
    });
  }
  for (const [command, snippet] of [
    ["echo terraform plan", "terraform plan"],
    ["terraform fmt -recursive", "main.tf\n"],
    ["terraform version", "Terraform v1.11.4\non linux_amd64\n"],
    ["grep -rn terraform_data .", "main.tf:8:resource \"terraform_data\" \"web\" {"],
    ["cat main.tf", "resource \"terraform_data\" \"web\" {\n  input = \"x\"\n}\n"],
  ]) {
    it(`does not claim ${JSON.stringify(command)}`, () => {
      assert.equal(plugin.match(command, snippet, 0).matched, false);
    });
  }
  it("claims a plan behind a wrapper at about 0.6", () => {
    const m = plugin.match("make plan", "Terraform will perform the following actions:\n\nPlan: 1 to add, 0 to change, 0 to destroy.\n", 0);
    assert.equal(m.matched, true);
    assert.ok(m.confidence >= 0.5 && m.confidence <= 0.7);
  });
});

describe("terraform: shape on the fixtures", () => {
  for (const fx of fixtures) {
    it(fx.name, () => {
      const { result } = shapeFixture(plugin, fx);
      const lines = result.summary.split("\n");
      const header = lines[0];
      const sub = fx.meta.command.split(/\s+/)[1];
      assert.ok(header.startsWith(`terraform ${sub}: `), header);
      const f = fx.meta.facts;
      if (fx.meta.exit_code !== 0) {
        assert.match(header, /: FAILED — \d+ errors?/, header);
        assert.equal(result.failed, true, "a failure says so, whatever the status");
        assert.ok(header.endsWith(`(exit ${fx.meta.exit_code})`), header);
        if (f.errors !== undefined) assert.ok(header.includes(`${f.errors} error`), header);
        if (f.created !== undefined) assert.ok(header.includes(`${f.created} created before the error`), header);
        // The attribute bodies of the plan are never shown.
        assert.ok(!lines.some((l) => /^\s+[+~-] (id|input|output)\s+=/.test(l)), result.summary);
      } else if (sub === "plan" && f.add !== undefined) {
        assert.ok(header.includes(`${f.add} to add, ${f.change} to change, ${f.destroy} to destroy`), header);
        assert.ok(!lines.some((l) => /^\s+[+~-] (id|input|output)\s+=/.test(l)), result.summary);
      } else if (sub === "apply") {
        assert.match(header, /: OK — Apply complete! Resources: /, header);
      } else {
        assert.match(header, /: OK — /, header);
        assert.equal(lines.length, 1, `success collapses to one line:\n${result.summary}`);
      }
    });
  }

  it("has a success, a failure and a large run", () => {
    for (const kind of ["passing", "failing", "large"]) assert.ok(fixtures.some((fx) => fx.meta.kind === kind), kind);
  });

  it("keeps every destroy in a long plan and counts the rest by action", () => {
    const fx = fixtures.find((f) => f.name === "plan-large");
    const { result } = shapeFixture(plugin, fx);
    assert.match(result.summary, /terraform_data\.service\["scheduler"\] will be destroyed/);
    assert.match(result.summary, /^… \d+ more resources that will be created omitted$/m);
  });
});

describe("terraform: fails toward raw", () => {
  it("shows an unrecognized failure raw", () => {
    const text = "panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\n";
    const r = plugin.shape(text, { command: "terraform plan", exitCode: 11, outputBytes: text.length, outputLines: 3 });
    assertResultType(r, "panic");
    assert.equal(r.renderMode, "raw");
  });
  it("accepts -detailed-exitcode's exit 2 as a plan with changes", () => {
    const fx = fixtures.find((f) => f.name === "plan-passing");
    const r = plugin.shape(fx.raw, { command: "terraform plan -detailed-exitcode", exitCode: 2, outputBytes: fx.raw.length, outputLines: 72 });
    assert.match(r.summary.split("\n")[0], /^terraform plan: 5 to add/);
  });
  it("never throws on odd input", () => assertRobust(plugin, "terraform plan"));
});
