# Runs the engine's own ANIMBIN exporter (tools/blender_animbin.py) on an FBX, headless:
#   blender -b --python export.py -- ENGINE_TOOLS_DIR INPUT.fbx OUTPUT.animbin
import bpy, sys, importlib.util
tools, fbx, out = sys.argv[sys.argv.index("--") + 1:]
spec = importlib.util.spec_from_file_location("blender_animbin", tools + "/blender_animbin.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=fbx)
arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
bpy.context.view_layer.objects.active = arm
arm.select_set(True)
print("bones", len(arm.data.bones), "actions", [a.name for a in bpy.data.actions], "active", arm.animation_data.action.name if arm.animation_data and arm.animation_data.action else None)
walk = next((a for a in bpy.data.actions if "Walk" in a.name), None)
if walk:
    arm.animation_data.action = walk
mod.export_animbin(bpy.context, out, 1, 30, "ACTIVE", [])
