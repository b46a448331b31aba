import {
  type AlarmEntry,
  type AlarmKanban,
  type AlarmListResult,
  type AlarmResetResult,
  alarmConfirmBody,
  alarmKanbanBody,
  alarmListBody,
  deviceAlarmsQuery,
  imageResetBody,
} from "../alarms.ts";
import { group, route } from "./route.ts";

/**
 * SPEC §7 "Alarms": a device's alarm list (page size 6) and confirming one alarm, the alarm
 * centre's list of every device in a context (`eid`), its statistics and the device reset.
 */
export const alarms = group(
  { auth: "user", tags: ["alarms"], smsAlarm: true },
  {
    deviceAlarms: route<AlarmListResult>()({
      method: "GET",
      path: "/api/v1/devices/alarms",
      summary: "A device's alarms, newest first, with what the caller may do with them",
      input: deviceAlarmsQuery,
    }),
    confirm: route<AlarmEntry>()({
      method: "PUT",
      path: "/api/v1/devices/alarms",
      summary: "Confirm one alarm (id; eid of the context, 0 personal)",
      input: alarmConfirmBody,
    }),
    list: route<AlarmListResult>()({
      method: "POST",
      path: "/api/v1/devices/alarmList",
      summary: "Alarm centre: alarms of every device the caller sees in the context",
      input: alarmListBody,
    }),
    kanban: route<AlarmKanban>()({
      method: "POST",
      path: "/api/v1/devices/alarmKanban",
      summary: "Alarm statistics: counts by level, by device and by day over a range",
      input: alarmKanbanBody,
    }),
    reset: route<AlarmResetResult>()({
      method: "PUT",
      path: "/api/v1/devices/imageReset",
      summary: "Reset a device's alarms: clear those still on and confirm the unconfirmed",
      input: imageResetBody,
    }),
  },
);
