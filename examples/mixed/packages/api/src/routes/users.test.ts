import { test } from "vitest";

test("GET /users/:id returns the user", async () => {});
