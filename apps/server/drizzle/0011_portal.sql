CREATE TABLE "scada_registrations" (
	"id" serial PRIMARY KEY NOT NULL,
	"company" text NOT NULL,
	"contact_name" text NOT NULL,
	"country_code" text NOT NULL,
	"phone" text NOT NULL,
	"email" text NOT NULL,
	"project_name" text NOT NULL,
	"device_count" smallint NOT NULL,
	"description" text NOT NULL,
	"oem_id" text NOT NULL,
	"language" text NOT NULL,
	"ip" text DEFAULT '' NOT NULL,
	"notification_id" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scada_registrations" ADD CONSTRAINT "scada_registrations_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scada_registrations_email_idx" ON "scada_registrations" USING btree ("email","created_at");