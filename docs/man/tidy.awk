# scdoc's output as mandoc -T lint wants it: no empty paragraph (.P before
# a section, another paragraph or the end, or right after a heading).
/^\.(SH|SS|TH)/ { if (pending) pending = 0; print; after_heading = 1; next }
/^\.P$/ { if (!after_heading) pending = 1; next }
/^\.(P|PP|RS|RE|TP|IP)( |$)/ { pending = 0 }
{ if (pending) { print ".P"; pending = 0 } print; if ($0 !~ /^\.\\"/) after_heading = 0 }
