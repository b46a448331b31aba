CREATE TABLE "camera_account_checks" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "camera_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"app_key" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"state" smallint DEFAULT 0 NOT NULL,
	"camera_count" integer,
	"check_code" text DEFAULT '' NOT NULL,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "camera_bindings" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "camera_account_checks" ADD CONSTRAINT "camera_account_checks_account_id_camera_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."camera_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_accounts" ADD CONSTRAINT "camera_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_bindings" ADD CONSTRAINT "camera_bindings_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_bindings" ADD CONSTRAINT "camera_bindings_account_id_camera_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."camera_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "camera_account_checks_account_idx" ON "camera_account_checks" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "camera_accounts_user_app_key" ON "camera_accounts" USING btree ("user_id","app_key");--> statement-breakpoint
CREATE UNIQUE INDEX "camera_accounts_one_default" ON "camera_accounts" USING btree ("user_id") WHERE "camera_accounts"."is_default";--> statement-breakpoint
CREATE INDEX "camera_bindings_account_idx" ON "camera_bindings" USING btree ("account_id");