import {
  cameraAccountAddBody,
  cameraAccountCheckBody,
  cameraAccountIdBody,
  cameraAccountListQuery,
  cameraAccountUpdateBody,
  cameraAppKeyCheckBody,
  cameraBindBody,
  cameraReleaseBody,
} from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf } from "../../http/auth.ts";
import { AppError, ok } from "../../http/envelope.ts";
import type { CameraService } from "./service.ts";

/** Calls that present a key pair to EZVIZ: a guessing oracle, so limited per address. */
const EZVIZ_LIMIT = { rateLimit: { max: 20, timeWindow: "1 minute" } };

/** SPEC §7 camera account calls (user, device and machine paths). */
export function cameraRoutes(
  app: FastifyInstance,
  deps: { cameras: CameraService; auth: preHandlerAsyncHookHandler },
) {
  const { cameras, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["cameras"];
  const userOf = (request: Parameters<typeof callerOf>[0]) => callerOf(request).userId;

  r.get(
    "/api/device/v1/ezviz/account",
    {
      schema: {
        tags,
        summary: "The caller's camera accounts (Secret masked); with machineId also its binding",
        querystring: cameraAccountListQuery,
      },
      preValidation: auth,
    },
    async (request) => ok(await cameras.list(userOf(request), request.query.machineId)),
  );

  r.post(
    "/api/device/v1/ezviz/account",
    {
      schema: {
        tags,
        summary: "Adds a camera account after EZVIZ accepted its AppKey and Secret",
        body: cameraAccountAddBody,
      },
      preValidation: auth,
      config: EZVIZ_LIMIT,
    },
    async (request) => ok(await cameras.add(userOf(request), request.body)),
  );

  r.delete(
    "/api/device/v1/ezviz/account",
    {
      schema: {
        tags,
        summary: "Deletes a camera account; devices bound to it are released",
        body: cameraAccountIdBody.nullish(),
        querystring: cameraAccountIdBody.partial(),
      },
      preValidation: auth,
    },
    async (request) => {
      // Body or, for clients that send no DELETE body, the query.
      const id = request.body?.id ?? request.query.id;
      if (!id) throw AppError.invalid("id", "v.id");
      await cameras.remove(userOf(request), id);
      return ok(null);
    },
  );

  r.post(
    "/api/user/updateEzvizAccount",
    {
      schema: {
        tags,
        summary: "Edits a camera account (a blank Secret keeps the stored one)",
        body: cameraAccountUpdateBody,
      },
      preValidation: auth,
      config: EZVIZ_LIMIT,
    },
    async (request) => {
      const { id, ...input } = request.body;
      return ok(await cameras.update(userOf(request), id, input));
    },
  );

  r.post(
    "/api/user/checkEzvizAppkey",
    {
      schema: {
        tags,
        summary: "Checks an AppKey and Secret at EZVIZ without storing them",
        body: cameraAppKeyCheckBody,
      },
      preValidation: auth,
      config: EZVIZ_LIMIT,
    },
    async (request) => ok(await cameras.checkAppKey(request.body.appKey, request.body.secret)),
  );

  r.post(
    "/api/user/checkEzvizAccount",
    {
      schema: {
        tags,
        summary: "Re-checks a stored camera account at EZVIZ (the default without id; 5 a day)",
        body: cameraAccountCheckBody,
      },
      preValidation: auth,
      // A check that does not reach EZVIZ is not counted against the 5 a day: limited here.
      config: EZVIZ_LIMIT,
    },
    async (request) => ok(await cameras.checkAccount(userOf(request), request.body.id)),
  );

  r.post(
    "/api/machine/changeEzvizAccount",
    {
      schema: {
        tags,
        summary: "Binds one of the caller's camera accounts to a device (Akey)",
        body: cameraBindBody,
      },
      preValidation: auth,
    },
    async (request) =>
      ok(await cameras.bind(userOf(request), request.body.machineId, request.body.ezvizAccountId)),
  );

  r.post(
    "/api/machine/releaseEzvizAccount",
    {
      schema: {
        tags,
        summary: "Releases a device's camera account (Akey)",
        body: cameraReleaseBody,
      },
      preValidation: auth,
    },
    async (request) => ok(await cameras.release(userOf(request), request.body.machineId)),
  );
}
