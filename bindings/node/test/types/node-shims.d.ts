// The one Node global usage.ts touches, declared here so that the check needs no @types/node.
declare const Buffer: { from(text: string): Uint8Array };
