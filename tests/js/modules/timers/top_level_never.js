await new Promise(() => {});
export default {};
