import { test } from "@playwright/test";

test("a guest can check out", async () => {});
