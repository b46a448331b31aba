CREATE TABLE "device_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"role" text NOT NULL,
	"name" text NOT NULL,
	"alias" text DEFAULT '' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"group_id" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"model" text DEFAULT '' NOT NULL,
	"secret_hash" text NOT NULL,
	"password_hash" text NOT NULL,
	"check_type" smallint DEFAULT 0 NOT NULL,
	"cloud_service" boolean DEFAULT true NOT NULL,
	"online" boolean DEFAULT false NOT NULL,
	"version" text DEFAULT '' NOT NULL,
	"ip" text DEFAULT '' NOT NULL,
	"iccid" text DEFAULT '' NOT NULL,
	"lat" double precision,
	"lng" double precision,
	"address" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "enterprise_devices" (
	"enterprise_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"type" smallint NOT NULL,
	"name" text NOT NULL,
	"group_id" integer,
	"maintenance_remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "enterprise_devices_enterprise_id_device_id_type_pk" PRIMARY KEY("enterprise_id","device_id","type")
);
--> statement-breakpoint
CREATE TABLE "enterprise_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"enterprise_id" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "enterprise_members" (
	"enterprise_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"kind" text NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "enterprise_members_enterprise_id_user_id_kind_pk" PRIMARY KEY("enterprise_id","user_id","kind")
);
--> statement-breakpoint
CREATE TABLE "enterprises" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"platform_name" text DEFAULT '' NOT NULL,
	"apply_logo_url" text DEFAULT '' NOT NULL,
	"enable_project" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_groups" ADD CONSTRAINT "device_groups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_links" ADD CONSTRAINT "device_links_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_links" ADD CONSTRAINT "device_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_links" ADD CONSTRAINT "device_links_group_id_device_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."device_groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enterprise_devices" ADD CONSTRAINT "enterprise_devices_enterprise_id_enterprises_id_fk" FOREIGN KEY ("enterprise_id") REFERENCES "public"."enterprises"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enterprise_devices" ADD CONSTRAINT "enterprise_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enterprise_devices" ADD CONSTRAINT "enterprise_devices_group_id_enterprise_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."enterprise_groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enterprise_groups" ADD CONSTRAINT "enterprise_groups_enterprise_id_enterprises_id_fk" FOREIGN KEY ("enterprise_id") REFERENCES "public"."enterprises"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enterprise_members" ADD CONSTRAINT "enterprise_members_enterprise_id_enterprises_id_fk" FOREIGN KEY ("enterprise_id") REFERENCES "public"."enterprises"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enterprise_members" ADD CONSTRAINT "enterprise_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_groups_user_name_key" ON "device_groups" USING btree ("user_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "device_links_device_user_key" ON "device_links" USING btree ("device_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_links_one_akey" ON "device_links" USING btree ("device_id") WHERE "device_links"."role" = 'akey';--> statement-breakpoint
CREATE INDEX "device_links_user_idx" ON "device_links" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_code_key" ON "devices" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "enterprise_devices_device_type_key" ON "enterprise_devices" USING btree ("device_id","type");--> statement-breakpoint
CREATE INDEX "enterprise_devices_list_idx" ON "enterprise_devices" USING btree ("enterprise_id","type","device_id");--> statement-breakpoint
CREATE UNIQUE INDEX "enterprise_groups_name_key" ON "enterprise_groups" USING btree ("enterprise_id","name");--> statement-breakpoint
CREATE INDEX "enterprise_members_user_idx" ON "enterprise_members" USING btree ("user_id");