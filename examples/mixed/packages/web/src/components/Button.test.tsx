import { test } from "vitest";

test("Button shows its label", () => {});
