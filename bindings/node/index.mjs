// The ES module entry of the binding: the same objects as the CommonJS entry (index.js).
import binding from './index.js';

export const {
  version, abiVersion, Host, jsCall, PluglineError, EXIT_CODE_UNKNOWN, addonPath,
} = binding;
export default binding;
