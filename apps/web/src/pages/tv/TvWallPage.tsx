import { alarmLevelKey, type WallTile } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useRef } from "react";
import { useSearchParams } from "react-router";
import { STATE_POLL_MS, useEnterpriseList } from "../../api/hooks.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime, formatRelative } from "../../lib/format.ts";
import { useNow } from "../../lib/useNow.ts";
import { type EnterpriseInfo, selectCurrentContext, useAppStore } from "../../store/app.ts";
import { wallApi, wallKey } from "./wallApi.ts";
import "./tv.css";

/** Arrow keys to the tile left / right / above / below (a TV remote's d-pad sends these). */
const MOVES: Record<string, "left" | "right" | "up" | "down"> = {
  ArrowLeft: "left",
  ArrowRight: "right",
  ArrowUp: "up",
  ArrowDown: "down",
};

/** Columns of the grid as laid out now: the tiles sharing the first one's row. */
function columnsOf(tiles: HTMLElement[]): number {
  if (tiles.length === 0) return 1;
  const top = tiles[0].offsetTop;
  const n = tiles.filter((tile) => tile.offsetTop === top).length;
  return Math.max(1, n);
}

/**
 * TV-box mode's device wall (SPEC §2: the navigation is hidden): one big tile per device of
 * the current context — name, online or offline, alarms still to confirm and the newest
 * alarm — in large, high-contrast type to be read from a sofa. It refreshes every
 * STATE_POLL_MS for the online states and at once on every alarm push (its query lives under
 * the alarm keys the push channel refreshes). The d-pad / arrow keys move between tiles.
 */
export function TvWallPage() {
  const { t } = useLang();
  const eid = useTvContext();
  const enterprises = useAppStore((s) => s.enterprisesList);
  const selectContext = useAppStore((s) => s.selectContext);
  const wall = useQuery({
    queryKey: wallKey(eid),
    queryFn: () => wallApi.wall(eid),
    refetchInterval: STATE_POLL_MS,
    refetchIntervalInBackground: true,
  });
  const grid = useRef<HTMLDivElement>(null);
  const list = wall.data?.list ?? [];
  const online = list.filter((tile) => tile.online).length;

  // The first tile takes the focus once there are tiles, so the remote works at once.
  const hasTiles = list.length > 0;
  useEffect(() => {
    if (!hasTiles) return;
    const active = document.activeElement;
    if (active && grid.current?.contains(active)) return;
    grid.current?.querySelector<HTMLElement>("[data-tile]")?.focus();
  }, [hasTiles]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const move = MOVES[event.key];
    if (!move || !grid.current) return;
    const tiles = [...grid.current.querySelectorAll<HTMLElement>("[data-tile]")];
    const at = tiles.indexOf(document.activeElement as HTMLElement);
    const cols = columnsOf(tiles);
    const step = { left: -1, right: 1, up: -cols, down: cols }[move];
    const next = tiles[Math.min(tiles.length - 1, Math.max(0, Math.max(at, 0) + step))];
    if (next) {
      event.preventDefault();
      next.focus();
      next.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  };

  return (
    <div className="kw-tv-wall" data-testid="tv-wall">
      <div className="kw-tv-bar">
        <h1>{t("tv.title")}</h1>
        {enterprises.length > 0 && (
          <ContextChooser eid={eid} enterprises={enterprises} onChoose={(e) => selectContext(e)} />
        )}
        {wall.data && (
          <span className="kw-tv-summary" data-testid="tv-summary" data-online={online}>
            {t("tv.summary", { online, total: wall.data.total })}
          </span>
        )}
        <span className="kw-tv-updated">
          {wall.dataUpdatedAt > 0 &&
            t("tv.updated", { time: formatDateTime(wall.dataUpdatedAt).slice(11) })}
        </span>
      </div>
      {wall.isPending && <div className="kw-tv-state">{t("common.loading")}</div>}
      {wall.error && !wall.data && (
        <div className="kw-tv-state kw-tv-error" data-testid="tv-error">
          {wall.error.message}
        </div>
      )}
      {wall.isSuccess && list.length === 0 && (
        <div className="kw-tv-state" data-testid="tv-empty">
          {t("tv.empty")}
        </div>
      )}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: arrow keys move between the tiles (buttons) inside */}
      <div className="kw-tv-grid" ref={grid} onKeyDown={onKeyDown} data-testid="tv-grid">
        {list.map((tile) => (
          <Tile key={tile.machine_id} tile={tile} />
        ))}
      </div>
      {wall.data && wall.data.total > list.length && (
        <div className="kw-tv-more">
          {t("tv.more", { shown: list.length, total: wall.data.total })}
        </div>
      )}
      <div className="kw-tv-keys">{t("tv.keys")}</div>
    </div>
  );
}

/**
 * The wall's context (TV-box mode hides the navigation and its context switch): `?eid=` in
 * the address (0 personal, or an enterprise of the user) chooses it, as does the chooser on
 * the wall; either is the same stored choice as the desktop's switch.
 */
function useTvContext(): number {
  useEnterpriseList();
  const [params] = useSearchParams();
  const wanted = params.get("eid");
  const enterprises = useAppStore((s) => s.enterprisesList);
  const selectContext = useAppStore((s) => s.selectContext);
  useEffect(() => {
    if (wanted === null) return;
    const id = Number(wanted);
    if (id === 0) selectContext(null);
    else {
      // An enterprise the user is not a member of is ignored (the list may still be loading).
      const enterprise = enterprises.find((e) => e.eid === id);
      if (enterprise) selectContext(enterprise);
    }
  }, [wanted, enterprises, selectContext]);
  return useAppStore((s) => selectCurrentContext(s).eid);
}

/** Personal devices and each enterprise, as large buttons a remote can reach. */
function ContextChooser({
  eid,
  enterprises,
  onChoose,
}: {
  eid: number;
  enterprises: EnterpriseInfo[];
  onChoose: (enterprise: EnterpriseInfo | null) => void;
}) {
  const { t } = useLang();
  const options: { eid: number; name: string; enterprise: EnterpriseInfo | null }[] = [
    { eid: 0, name: t("layout.personalDevices"), enterprise: null },
    ...enterprises.map((e) => ({ eid: e.eid, name: e.name, enterprise: e })),
  ];
  return (
    <fieldset className="kw-tv-contexts" aria-label={t("tv.context")}>
      {options.map((option) => (
        <button
          type="button"
          key={option.eid}
          className={option.eid === eid ? "is-current" : undefined}
          aria-pressed={option.eid === eid}
          onClick={() => onChoose(option.enterprise)}
          data-testid={`tv-context-${option.eid}`}
        >
          {option.name}
        </button>
      ))}
    </fieldset>
  );
}

function Tile({ tile }: { tile: WallTile }) {
  const { t } = useLang();
  const now = useNow(30_000);
  const alarm = tile.latest_alarm;
  const band = alarm ? alarmLevelKey(alarm.level) : undefined;
  const alarming = tile.unconfirmed > 0;
  return (
    <button
      type="button"
      data-tile
      className={`kw-tv-tile ${tile.online ? "is-online" : "is-offline"} ${alarming ? "is-alarming" : ""}`}
      data-testid={`tv-tile-${tile.machine_code}`}
      data-online={tile.online ? 1 : 0}
      data-unconfirmed={tile.unconfirmed}
    >
      <div className="kw-tv-tile-head">
        <span className="kw-tv-name">{tile.machine_name}</span>
        <span className="kw-tv-state-pill" data-testid="tv-tile-state">
          <i />
          {tile.online ? t("tv.online") : t("tv.offline")}
        </span>
      </div>
      <div className="kw-tv-code">{tile.machine_code}</div>
      <div className="kw-tv-alarm">
        {alarming && (
          <span className="kw-tv-count" data-testid="tv-tile-count">
            {t("tv.alarmsToConfirm", { count: tile.unconfirmed })}
          </span>
        )}
        {alarm ? (
          <>
            <span className={`kw-tv-level kw-tv-level-${band}`}>
              {band && t(`device.alarm.levels.${band}`)}
            </span>
            <span className="kw-tv-alarm-text" data-testid="tv-tile-alarm">
              {alarm.content}
            </span>
            <span className="kw-tv-alarm-time">
              {formatRelative(alarm.time, now)}
              {alarm.confirmed === 1 && ` · ${t("tv.confirmed")}`}
              {alarm.cleared === 1 && ` · ${t("tv.cleared")}`}
            </span>
          </>
        ) : (
          <span className="kw-tv-quiet">{t("tv.noAlarms")}</span>
        )}
      </div>
    </button>
  );
}
