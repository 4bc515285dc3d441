import type { FastifyInstance } from "fastify";

export async function usersRoutes(app: FastifyInstance) {
  app.get("/:id", async (request) => ({ id: (request.params as { id: string }).id }));
}
