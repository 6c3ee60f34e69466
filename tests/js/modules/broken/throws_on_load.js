const config = undefined;
export default { threshold: config.threshold };
