import { API } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import type { WallService } from "./service.ts";

/** The TV-box device wall (packages/shared/src/contract/wall.ts). */
export function wallRoutes(serve: Serve, { wall }: { wall: WallService }) {
  serve(API.wall.wall, ({ caller, input }) => wall.wall(caller, input.eid));
}
