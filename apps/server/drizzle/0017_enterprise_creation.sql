CREATE TABLE "brand_settings" (
	"oem_id" text PRIMARY KEY NOT NULL,
	"user_enterprises" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "enterprises" ADD COLUMN "created_by" integer;--> statement-breakpoint
ALTER TABLE "enterprises" ADD CONSTRAINT "enterprises_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "enterprises_created_by_idx" ON "enterprises" USING btree ("created_by");