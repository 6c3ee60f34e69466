import type { Plugin } from "@opencode-ai/plugin";
export declare const DangerousCommands: Plugin;
