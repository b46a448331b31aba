CREATE TABLE "remote_settings" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"onsite_consent" boolean DEFAULT false NOT NULL,
	"readonly_websocket" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visit_activity" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"visit_id" text NOT NULL,
	"device_id" integer NOT NULL,
	"kind" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"method" text DEFAULT '' NOT NULL,
	"path" text DEFAULT '' NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"bytes_in" bigint DEFAULT 0 NOT NULL,
	"bytes_out" bigint DEFAULT 0 NOT NULL,
	"view_only" boolean DEFAULT false NOT NULL,
	"input_events" integer DEFAULT 0 NOT NULL,
	"dropped_events" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "kind" text DEFAULT 'web' NOT NULL;--> statement-breakpoint
ALTER TABLE "visits" ADD COLUMN "view_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "remote_settings" ADD CONSTRAINT "remote_settings_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_activity" ADD CONSTRAINT "visit_activity_visit_id_visits_id_fk" FOREIGN KEY ("visit_id") REFERENCES "public"."visits"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "visit_activity_device_idx" ON "visit_activity" USING btree ("device_id","at");--> statement-breakpoint
CREATE INDEX "visit_activity_visit_idx" ON "visit_activity" USING btree ("visit_id","at");