CREATE TABLE "visits" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" integer,
	"terminal_id" integer NOT NULL,
	"terminal_name" text DEFAULT '' NOT NULL,
	"device_id" integer NOT NULL,
	"target" text NOT NULL,
	"ticket_hash" text,
	"cookie_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"url_expires_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"last_active_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"ended_by" integer,
	"end_reason" text,
	"bytes_in" bigint DEFAULT 0 NOT NULL,
	"bytes_out" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visits" ADD CONSTRAINT "visits_ended_by_users_id_fk" FOREIGN KEY ("ended_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "visits_device_idx" ON "visits" USING btree ("device_id","started_at");--> statement-breakpoint
CREATE INDEX "visits_running_idx" ON "visits" USING btree ("ended_at","last_active_at");