import { type WallResult, wallBody } from "../wall.ts";
import { group, route } from "./route.ts";

/** The TV-box device wall: the context's devices with state and alarms in one answer. */
export const wall = group(
  { auth: "user", tags: ["devices"] },
  {
    wall: route<WallResult>()({
      method: "POST",
      path: "/api/v1/devices/wall",
      summary:
        "TV-box device wall: each device of the context (eid, 0 personal) with online state, unconfirmed alarms and the newest alarm",
      input: wallBody,
    }),
  },
);
