CREATE TABLE "alarms" (
	"id" serial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"uid" text NOT NULL,
	"type" text NOT NULL,
	"variable" text DEFAULT '' NOT NULL,
	"level" smallint DEFAULT 1 NOT NULL,
	"content" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "location_way" text DEFAULT 'gps' NOT NULL;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "last_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alarms" ADD CONSTRAINT "alarms_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alarms_device_uid_key" ON "alarms" USING btree ("device_id","uid");--> statement-breakpoint
CREATE INDEX "alarms_device_time_idx" ON "alarms" USING btree ("device_id","time");