CREATE TABLE "project_machines" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_users" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"level" smallint NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"eid" integer DEFAULT 0 NOT NULL,
	"type" smallint DEFAULT 1 NOT NULL,
	"owner_id" integer NOT NULL,
	"report_state" boolean DEFAULT false NOT NULL,
	"server" text DEFAULT '' NOT NULL,
	"secret_key_sealed" text NOT NULL,
	"enable_get_visit_url" boolean DEFAULT false NOT NULL,
	"interval_hours" smallint DEFAULT 0 NOT NULL,
	"report_count" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_machines" ADD CONSTRAINT "project_machines_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_machines" ADD CONSTRAINT "project_machines_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "project_machines_device_key" ON "project_machines" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "project_machines_project_idx" ON "project_machines" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_users_project_user_key" ON "project_users" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE INDEX "project_users_user_idx" ON "project_users" USING btree ("user_id");