# NodePath text form in Godot 4 (src/owned/convert.rs test): for each text, NodePath(text), then
# String(np), names, subnames, is_absolute, is_empty. Run: tests/godot/godot4 DIR node_paths4.gd
extends SceneTree
func _init() -> void:
	for s in ["a//b", "/", "a:b:", "a::b", ":x", "//a", "a/", "", "/root/a:prop:sub", "a/b/:c", "::", ":", "a:", "/:", "a:b::", " a / b ", "a.b/c:d.e"]:
		var np := NodePath(s)
		var names := []
		for i in np.get_name_count(): names.append(String(np.get_name(i)))
		var subs := []
		for i in np.get_subname_count(): subs.append(String(np.get_subname(i)))
		print("%s\t%s\t%s\t%s\t%s\t%s" % [s, String(np), names, subs, np.is_absolute(), np.is_empty()])
	quit()
