CREATE TABLE "access_request_steps" (
	"id" serial PRIMARY KEY NOT NULL,
	"request_id" integer NOT NULL,
	"actor_id" integer,
	"by" text NOT NULL,
	"result" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "access_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"device_id" integer NOT NULL,
	"requester_id" integer NOT NULL,
	"terminal_uuid" text DEFAULT '' NOT NULL,
	"terminal_name" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"remarks" text DEFAULT '' NOT NULL,
	"check_type" smallint NOT NULL,
	"state" smallint DEFAULT 0 NOT NULL,
	"visit_minutes" integer,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "black_list" (
	"id" serial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"added_by" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visit_grants" (
	"id" serial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"terminal_uuid" text NOT NULL,
	"terminal_name" text DEFAULT '' NOT NULL,
	"expires_at" timestamp with time zone,
	"cleared_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"box" text NOT NULL,
	"type" smallint NOT NULL,
	"device_id" integer,
	"request_id" integer,
	"alarm_id" integer,
	"content" text DEFAULT '' NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "confirmed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "confirmed_by" integer;--> statement-breakpoint
ALTER TABLE "alarms" ADD COLUMN "messaged_at" timestamp with time zone;--> statement-breakpoint
UPDATE "alarms" SET "messaged_at" = "created_at";--> statement-breakpoint
ALTER TABLE "device_links" ADD COLUMN "can_write" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "device_links" ADD COLUMN "receives_alarms" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "access_request_steps" ADD CONSTRAINT "access_request_steps_request_id_access_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."access_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_request_steps" ADD CONSTRAINT "access_request_steps_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_requester_id_users_id_fk" FOREIGN KEY ("requester_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "black_list" ADD CONSTRAINT "black_list_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "black_list" ADD CONSTRAINT "black_list_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "black_list" ADD CONSTRAINT "black_list_added_by_users_id_fk" FOREIGN KEY ("added_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_grants" ADD CONSTRAINT "visit_grants_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_grants" ADD CONSTRAINT "visit_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_request_id_access_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."access_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_alarm_id_alarms_id_fk" FOREIGN KEY ("alarm_id") REFERENCES "public"."alarms"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "access_request_steps_request_idx" ON "access_request_steps" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "access_requests_device_idx" ON "access_requests" USING btree ("device_id","state");--> statement-breakpoint
CREATE INDEX "access_requests_requester_idx" ON "access_requests" USING btree ("requester_id","device_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "black_list_device_user_key" ON "black_list" USING btree ("device_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "visit_grants_device_user_terminal_key" ON "visit_grants" USING btree ("device_id","user_id","terminal_uuid");--> statement-breakpoint
CREATE INDEX "messages_user_box_idx" ON "messages" USING btree ("user_id","box","id");--> statement-breakpoint
CREATE INDEX "messages_request_idx" ON "messages" USING btree ("request_id");