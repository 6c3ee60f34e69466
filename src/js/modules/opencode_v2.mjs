// OpenCode's V2 plugin API, Promise flavour (`define({ id, setup })` from
// "@opencode-ai/plugin/v2/promise"), for the wrapper (opencode_host.mjs), as "plugline:opencode-v2".
//
// `setup(ctx)` registers transforms on six domains — ctx.agent, ctx.catalog, ctx.command,
// ctx.integration, ctx.reference, ctx.skill — and the AI SDK hooks ctx.aisdk.sdk and
// ctx.aisdk.language. Each registration returns a Registration whose dispose() removes it.
//
// The host drives them by name, as V1 hooks: `<domain>.transform` hands the domain's data (JSON,
// below) to every registered transform of the domain in registration order, each editing it
// through the same draft API OpenCode gives (catalog.provider.update(id, fn), …), and answers the
// result as the output. The data is the output when the host gives one (so that plugins chain:
// each module edits what the previous one left), else the input. `<domain>.reload` does the same
// over the data last handed in; a plugin's own ctx.<domain>.reload() re-runs the transforms over
// that data too, and the host sees the result on its next trigger.
//
// The data of each domain, as JSON (OpenCode keeps Maps; the drafts here show Maps where
// OpenCode's do):
//   catalog      { providers: { <id>: { provider: {...}, models: { <modelID>: {...} } } },
//                  default?: { providerID, modelID } }
//   agent        { agents: { <id>: {...} }, default?: <id> }
//   command      { commands: { <name>: { name, template, ... } } }
//   integration  { integrations: { <id>: { ref: { id, name, ... }, methods: [...] } } }
//   reference    { sources: { <name>: { type: "local" | "git", ... } } }
//   skill        { sources: [ { type, ... } ] }
// What a draft creates is what OpenCode's creates: an updated provider that did not exist starts
// as { id, name: id, api: { type: "native", settings: {} }, request: { headers: {}, body: {} } },
// and so on (the empty values below).

const clone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
const entries = (object) => Object.entries(object !== null && typeof object === "object" ? object : {});

const emptyProvider = (id) => ({ id, name: id, api: { type: "native", settings: {} }, request: { headers: {}, body: {} } });
const emptyModel = (providerID, id) => ({
  id, providerID, name: id, api: { id, type: "native", settings: {} },
  capabilities: { tools: false, input: [], output: [] }, request: { headers: {}, body: {} },
  variants: [], time: { released: 0 }, cost: [], status: "active", enabled: true,
  limit: { context: 0, output: 0 },
});
const emptyAgent = (id) => ({ id, request: { headers: {}, body: {} }, mode: "all", hidden: false, permissions: [] });

// A request body's baseURL belongs in api.url (as OpenCode moves it after every update).
function moveBaseUrl(info) {
  if (typeof info?.request?.body?.baseURL !== "string") return;
  info.api = info.api ?? {};
  info.api.url = info.request.body.baseURL;
  delete info.request.body.baseURL;
}

// Each domain: its state from JSON, back to JSON, and the draft OpenCode's transforms get.
const DOMAINS = {
  catalog: {
    read: (data) => ({
      providers: new Map(entries(data.providers).map(([id, record]) => [id, {
        provider: clone(record?.provider) ?? emptyProvider(id),
        models: new Map(entries(record?.models).map(([modelID, model]) => [modelID, clone(model)])),
      }])),
      defaultModel: clone(data.default),
    }),
    write: (state) => ({
      providers: Object.fromEntries([...state.providers].map(([id, record]) => [id, {
        provider: record.provider, models: Object.fromEntries(record.models),
      }])),
      ...(state.defaultModel ? { default: state.defaultModel } : {}),
    }),
    draft: (state) => {
      const record = (id) => {
        let found = state.providers.get(id);
        if (!found) {
          found = { provider: emptyProvider(id), models: new Map() };
          state.providers.set(id, found);
        }
        return found;
      };
      return {
        provider: {
          list: () => [...state.providers.values()],
          get: (id) => state.providers.get(id),
          update: (id, update) => { const found = record(id); update(found.provider); moveBaseUrl(found.provider); },
          remove: (id) => { state.providers.delete(id); },
        },
        model: {
          get: (providerID, modelID) => state.providers.get(providerID)?.models.get(modelID),
          update: (providerID, modelID, update) => {
            const found = record(providerID);
            let model = found.models.get(modelID);
            if (!model) {
              model = emptyModel(providerID, modelID);
              found.models.set(modelID, model);
            }
            update(model);
            model.id = modelID;
            model.providerID = providerID;
            moveBaseUrl(model);
          },
          remove: (providerID, modelID) => { state.providers.get(providerID)?.models.delete(modelID); },
          default: {
            get: () => state.defaultModel,
            set: (providerID, modelID) => { state.defaultModel = { providerID, modelID }; },
          },
        },
      };
    },
  },
  agent: {
    read: (data) => ({ agents: new Map(entries(data.agents).map(([id, a]) => [id, clone(a)])), default: data.default }),
    write: (state) => ({ agents: Object.fromEntries(state.agents), ...(state.default !== undefined ? { default: state.default } : {}) }),
    draft: (state) => ({
      list: () => [...state.agents.values()],
      get: (id) => state.agents.get(id),
      default: (id) => { state.default = id; },
      update: (id, update) => {
        let agent = state.agents.get(id);
        if (!agent) { agent = emptyAgent(id); state.agents.set(id, agent); }
        update(agent);
        agent.id = id;
      },
      remove: (id) => { state.agents.delete(id); },
    }),
  },
  command: {
    read: (data) => ({ commands: new Map(entries(data.commands).map(([name, c]) => [name, clone(c)])) }),
    write: (state) => ({ commands: Object.fromEntries(state.commands) }),
    draft: (state) => ({
      list: () => [...state.commands.values()],
      get: (name) => state.commands.get(name),
      update: (name, update) => {
        let command = state.commands.get(name);
        if (!command) { command = { name, template: "" }; state.commands.set(name, command); }
        update(command);
        command.name = name;
      },
      remove: (name) => { state.commands.delete(name); },
    }),
  },
  integration: {
    read: (data) => ({
      integrations: new Map(entries(data.integrations).map(([id, i]) => [id, {
        ref: clone(i?.ref) ?? { id, name: id }, methods: clone(i?.methods) ?? [],
      }])),
    }),
    write: (state) => ({ integrations: Object.fromEntries(state.integrations) }),
    draft: (state) => {
      const record = (id) => {
        let found = state.integrations.get(id);
        if (!found) { found = { ref: { id, name: id }, methods: [] }; state.integrations.set(id, found); }
        return found;
      };
      const sameMethod = (a, b) => a.type === b.type && (a.type !== "oauth" || a.id === b.id);
      return {
        list: () => [...state.integrations.values()].map((i) => i.ref),
        get: (id) => state.integrations.get(id)?.ref,
        update: (id, update) => { const found = record(id); update(found.ref); found.ref.id = id; },
        remove: (id) => { state.integrations.delete(id); },
        method: {
          list: (id) => state.integrations.get(id)?.methods ?? [],
          // An OAuth method's authorize/refresh functions stay in the plugin: the data keeps
          // the method's description.
          update: (registration) => {
            const found = record(registration.integrationID);
            const method = clone(registration.method);
            const index = found.methods.findIndex((m) => sameMethod(m, method));
            if (index === -1) found.methods.push(method);
            else found.methods[index] = method;
          },
          remove: (id, method) => {
            const found = state.integrations.get(id);
            if (found) found.methods = found.methods.filter((m) => !sameMethod(m, method));
          },
        },
      };
    },
  },
  reference: {
    read: (data) => ({ sources: new Map(entries(data.sources).map(([name, s]) => [name, clone(s)])) }),
    write: (state) => ({ sources: Object.fromEntries(state.sources) }),
    draft: (state) => ({
      add: (name, source) => { state.sources.set(name, clone(source)); },
      remove: (name) => { state.sources.delete(name); },
      list: () => [...state.sources.entries()],
    }),
  },
  skill: {
    read: (data) => ({ sources: Array.isArray(data.sources) ? clone(data.sources) : [] }),
    write: (state) => ({ sources: state.sources }),
    draft: (state) => ({
      source: (source) => {
        const text = JSON.stringify(source);
        if (!state.sources.some((s) => JSON.stringify(s) === text)) state.sources.push(clone(source));
      },
      list: () => state.sources,
    }),
  },
};

const AISDK = ["sdk", "language"];

// A V2 plugin: what define() returns.
export function isV2Plugin(value) {
  return value !== null && typeof value === "object" && typeof value.setup === "function";
}

const isEmpty = (value) => value === null || value === undefined ||
    (typeof value === "object" && Object.keys(value).length === 0);

// The registrations of one module's V2 plugins, and the host's way in.
export function createV2(errorMessage) {
  const registered = [];  // [{ name: "catalog.transform" | "aisdk.sdk", plugin, fn }] in order
  const lastData = {};    // domain → the data last handed in

  function register(name, plugin, fn) {
    if (typeof fn !== "function") throw new TypeError(`${name}: expected a function`);
    const entry = { name, plugin, fn };
    registered.push(entry);
    return Promise.resolve({
      dispose: async () => {
        const index = registered.indexOf(entry);
        if (index !== -1) registered.splice(index, 1);
      },
    });
  }

  async function transform(domain, data) {
    const spec = DOMAINS[domain];
    const state = spec.read(data);
    const draft = spec.draft(state);
    for (const { name, plugin, fn } of [...registered]) {
      if (name !== `${domain}.transform`) continue;
      try {
        await fn(draft);
      } catch (error) {
        return { data: spec.write(state), error: { plugin, message: errorMessage(error) } };
      }
    }
    return { data: spec.write(state) };
  }

  function context(plugin, options) {
    const ctx = { options: Object.freeze({ ...(options ?? {}) }) };
    for (const domain of Object.keys(DOMAINS)) {
      ctx[domain] = {
        transform: (fn) => register(`${domain}.transform`, plugin, fn),
        reload: async () => {
          const result = await transform(domain, lastData[domain] ?? {});
          if (result.error) throw new Error(result.error.message);
        },
      };
    }
    // Connections are the host's credentials: plugline keeps none.
    ctx.integration.connection = { active: async () => undefined, resolve: async () => undefined };
    ctx.aisdk = Object.fromEntries(AISDK.map((hook) => [hook, (fn) => register(`aisdk.${hook}`, plugin, fn)]));
    const refuse = (what) => async () => {
      throw new Error(`ctx.plugin.${what}: plugline loads plugins from its configuration, not from other plugins`);
    };
    ctx.plugin = { add: refuse("add"), remove: refuse("remove") };
    return ctx;
  }

  return {
    // Runs every plugin's setup(ctx) in order; answers the hook names the host may trigger.
    async setup(plugins, options) {
      for (const { id, plugin } of plugins) await plugin.setup(context(id, options));
      const names = new Set();
      for (const { name } of registered) {
        names.add(name);
        if (name.endsWith(".transform")) names.add(name.replace(/\.transform$/, ".reload"));
      }
      return [...names];
    },

    // The answer to a V2 hook triggered by name, or undefined when `name` is not one.
    async trigger(name, input, output) {
      const [domain, operation] = name.split(".");
      if (Object.hasOwn(DOMAINS, domain) && (operation === "transform" || operation === "reload")) {
        const given = isEmpty(output) ? input : output;
        const data = operation === "reload" && isEmpty(given) ? lastData[domain] ?? {} : given;
        lastData[domain] = clone(data ?? {});
        const result = await transform(domain, lastData[domain]);
        for (const key of Object.keys(output)) delete output[key];
        Object.assign(output, result.data);
        return result.error ? { output, error: result.error } : { output };
      }
      if (domain === "aisdk" && AISDK.includes(operation) && name === `aisdk.${operation}`) {
        // The SDK and model objects a hook sets stay in the plugin's runtime: the host sees the
        // options as the hooks left them, and which plugin set the object.
        const event = { ...clone(input ?? {}), ...(output ?? {}) };
        for (const { name: hookName, plugin, fn } of [...registered]) {
          if (hookName !== name) continue;
          const before = event[operation];
          try {
            await fn(event);
          } catch (error) {
            return { output, error: { plugin, message: errorMessage(error) } };
          }
          if (event[operation] !== before) output[`${operation}SetBy`] = plugin;
        }
        if (event.options !== undefined) output.options = clone(event.options);
        return { output };
      }
      return undefined;
    },
  };
}
