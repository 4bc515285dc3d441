export const theme = { primary: "var(--primary)" };
