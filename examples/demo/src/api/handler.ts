export function handler() {}
