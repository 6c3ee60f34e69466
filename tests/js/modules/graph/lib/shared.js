export const shared = 10;
